import FlowServerRuntime

@main
enum HelloMain {
    static func main() async {
        await FlowServerRuntime.run(.init(name: "hello", abstract: "Says hello.")) { _ in try HelloApp.webApp() }
    }
}
