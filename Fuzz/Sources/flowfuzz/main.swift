#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// flowfuzz: FUZZ_HARNESS=<harness> flowfuzz [libFuzzer's arguments] [corpus folders]
// libFuzzer's driver (-sanitize=fuzzer) runs the harness on every input it makes.

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The harness `FUZZ_HARNESS` names, chosen once before the first input.
nonisolated(unsafe) private var selected = Harness.requestTarget

guard let name = getenv("FUZZ_HARNESS").map({ String(cString: $0) }), let harness = Harness(rawValue: name) else {
    print("flowfuzz: set FUZZ_HARNESS to one of: \(Harness.allCases.map(\.rawValue).joined(separator: ", "))")
    exit(2)
}
selected = harness
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    runDriver(&argc, &argv) { data, count in
        selected.run(count == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: count)))
        return 0
    })
