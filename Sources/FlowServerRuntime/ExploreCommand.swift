import ArgumentParser
import FlowCore
import FlowExplorer
import FlowWeb
import Foundation

/// `<app> explore`: explores the app in process (see `FlowExplorer`) and writes its navigation
/// graph as DOT or SVG; the findings go to standard error, and any finding makes the exit
/// status 1.
struct ExploreCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "\(AppCommandDescription.current.name) explore",
            abstract:
                "Explores every state the app's pages reach (links, forms, Back, tabs, deep links) and writes its navigation graph.",
            discussion: """
                The graph (pages as nodes, steps as edges, flows as clusters) goes to standard output \
                or --output; what the exploration found goes to standard error, and any finding makes \
                the exit status 1. SVG needs Graphviz's `dot` on the PATH.
                """)
    }

    /// The graph's format.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, svg
    }

    @Option(help: "The graph's format.")
    var format = Format.dot

    @Option(help: "Write the graph to this file instead of standard output.")
    var output: String?

    @Option(help: "Directory of the app's templates (over FlowServer's defaults).")
    var templates = "Templates"

    @Option(parsing: .unconditional, help: "The most actions on a path from a new session.")
    var depth = 4

    @Option(parsing: .unconditional, help: "The most distinct states explored.")
    var states = 5_000

    @Option(
        name: .customLong("links-per-step"), parsing: .unconditional,
        help: "Links of a page sending the same step followed per state (0: all).")
    var linksPerStep = 2

    /// The app's session limits, which the exploration reports any path of growing without end
    /// against.
    @OptionGroup var limits: SessionLimitOptions

    func validate() throws {
        guard depth >= 1 else { throw ValidationError("--depth must be at least 1, got \(depth)") }
        guard states >= 1 else { throw ValidationError("--states must be at least 1, got \(states)") }
        guard linksPerStep >= 0 else {
            throw ValidationError("--links-per-step must not be negative (0: all), got \(linksPerStep)")
        }
    }

    var bounds: ExplorationBounds {
        ExplorationBounds(depth: depth, states: states, linksPerStep: linksPerStep == 0 ? nil : linksPerStep)
    }
}

extension FlowServerRuntime {
    /// Runs `explore` for `app` with `arguments` (after the word `explore`); returns only by
    /// exiting.
    static func explore<Step: FlowStep>(
        _ command: Command, arguments: [String], samples: ExplorationSamples,
        app makeApp: () throws -> WebApp<Step>
    ) async -> Never {
        let options = parseSubcommand(ExploreCommand.self, arguments, named: "explore", of: command)
        let fail = { (message: String) -> Never in stop(printing: "\(command.name) explore: \(message)", status: 1) }
        let report: ExplorationReport
        do {
            let explorer = try FlowExplorer(
                app: try makeApp(), templatesDirectory: options.templates, samples: samples, bounds: options.bounds,
                limits: options.limits.sessionLimits)
            report = try await explorer.explore()
        } catch {
            fail("\(error)")
        }
        let dot = report.graph.dot(title: command.name)
        var graph = Array(dot.utf8)
        if options.format == .svg {
            do { graph = try svg(from: dot) } catch { fail("\(error)") }
        }
        if let output = options.output {
            guard FileManager.default.createFile(atPath: output, contents: Data(graph)) else {
                fail("cannot write \(output)")
            }
        } else {
            FileHandle.standardOutput.write(Data(graph))
        }
        var lines = ["\(command.name) explore: \(report.summary)"]
        lines += report.findings.map { "\($0)" }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        exit(report.findings.isEmpty ? 0 : 1)
    }

    /// `dot` rendered as SVG by Graphviz.
    private static func svg(from dot: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["dot", "-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch {
            throw ExplorationError("SVG needs Graphviz's dot (apt-get install graphviz): \(error)")
        }
        input.fileHandleForWriting.write(Data(dot.utf8))
        try input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ExplorationError("dot -Tsvg failed with status \(process.terminationStatus) (is Graphviz installed?)")
        }
        return Array(svg)
    }
}
