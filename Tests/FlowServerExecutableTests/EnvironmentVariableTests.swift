@testable import flowserver
import Testing

@Suite("flowserver's environment variables")
struct EnvironmentVariableTests {
    @Test("every flag --help lists can be set by its FLOWSERVER_ variable")
    func everyFlagHasAVariable() {
        let help = FlowServerCommand.helpMessage(columns: 1000)
        let flags = Set(help.matches(of: /--([a-z][a-z-]*)/).map { String($0.output.1) }).subtracting(["help"])
        #expect(flags.contains("port") && flags.contains("trusted-proxy"), "the flags were read from --help")
        #expect(flags == Set(EnvironmentArguments.options + EnvironmentArguments.flags))
    }

    @Test("a list flag takes its variable as one value; the command line still wins")
    func merged() throws {
        let arguments = try EnvironmentArguments.merged(
            ["FLOWSERVER_TRUSTED_PROXY": "10.0.0.1,10.0.0.2", "FLOWSERVER_NEW_SESSIONS_PER_MINUTE": "5"], with: ["--new-sessions-per-minute", "7"])
        let command = try FlowServerCommand.parse(arguments)
        #expect(command.trustedProxies == ["10.0.0.1", "10.0.0.2"])
        #expect(command.newSessionsPerMinute == 7)
    }
}
