import ArgumentParser
import Testing

@testable import FlowServerRuntime

@Suite("flowserver's environment variables")
struct EnvironmentVariableTests {
    @Test("every flag --help lists can be set by its FLOWSERVER_ variable")
    func everyFlagHasAVariable() {
        let help = AppCommand<NoAppOptions>.helpMessage(columns: 1000)
        let flags = Set(help.matches(of: /--([a-z][a-z-]*)/).map { String($0.output.1) }).subtracting(["help"])
        #expect(flags.contains("port") && flags.contains("trusted-proxy"), "the flags were read from --help")
        let onByDefault = EnvironmentArguments.onByDefault
        #expect(
            flags
                == Set(
                    EnvironmentArguments.options + EnvironmentArguments.flags + onByDefault
                        + onByDefault.map { "no-\($0)" }))
    }

    @Test("a flag on by default is switched off by its variable set to 0, and on again by the command line")
    func onByDefault() throws {
        let off = try EnvironmentArguments.merged(["FLOWSERVER_INSPECTOR": "0", "FLOWSERVER_METRICS": "no"], with: [])
        let parsedOff = try AppCommand<NoAppOptions>.parse(off)
        #expect(!parsedOff.server.inspector && !parsedOff.server.metrics)
        let again = try AppCommand<NoAppOptions>.parse(
            try EnvironmentArguments.merged(["FLOWSERVER_INSPECTOR": "0"], with: ["--inspector"]))
        #expect(again.server.inspector && again.server.metrics)
        #expect(throws: EnvironmentArguments.Failure.self) {
            try EnvironmentArguments.merged(["FLOWSERVER_METRICS": "maybe"], with: [])
        }
    }

    @Test("a list flag takes its variable as one value; the command line still wins")
    func merged() throws {
        let arguments = try EnvironmentArguments.merged(
            ["FLOWSERVER_TRUSTED_PROXY": "10.0.0.1,10.0.0.2", "FLOWSERVER_NEW_SESSIONS_PER_MINUTE": "5"],
            with: ["--new-sessions-per-minute", "7"])
        let command = try AppCommand<NoAppOptions>.parse(arguments)
        #expect(command.server.trustedProxies == ["10.0.0.1", "10.0.0.2"])
        #expect(command.server.newSessionsPerMinute == 7)
    }
}

/// Options an app adds beside the server's.
private struct CheckoutOptions: ParsableArguments {
    @Option(help: "Prices' currency.") var currency = "EUR"
    @Flag(name: .customLong("demo-data"), help: "Fill the catalogue.") var demoData = false
}

@Suite("An app's own options")
struct AppOptionsTests {
    @Test("an app's flags parse beside the server's; the variables it names set them, the command line still wins")
    func appOptions() throws {
        let environment = ["FLOWSERVER_CURRENCY": "CHF", "FLOWSERVER_DEMO_DATA": "1", "FLOWSERVER_PORT": "9000"]
        let arguments = try EnvironmentArguments.merged(
            environment, with: ["--port", "9001"], appOptions: ["currency"], appFlags: ["demo-data"])
        let command = try AppCommand<CheckoutOptions>.parse(arguments)
        #expect(command.app.currency == "CHF" && command.app.demoData)
        #expect(command.server.port == 9001)
        let help = AppCommand<CheckoutOptions>.helpMessage(columns: 1000)
        #expect(help.contains("--currency") && help.contains("--store"))
    }
}
