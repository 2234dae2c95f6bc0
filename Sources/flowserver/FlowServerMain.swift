import FlowServerPostgres
import FlowServerRuntime
import MoviesDemo

/// `flowserver`: the Movies demo, run by ``FlowServerRuntime`` with FlowServer's whole command
/// line (`flowserver --help`).
@main
enum FlowServerMain {
    static func main() async {
        await FlowServerRuntime.run(
            .init(
                name: "flowserver",
                abstract: "Serves FlowServer's Movies demo: coordinator flows as server-rendered web pages.",
                stores: [.postgres])
        ) { _ in try MoviesDemo.webApp() }
    }
}
