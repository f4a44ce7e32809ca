import Foundation
import SAMLCore

// The libFuzzer target over SAMLCore's decoders and parser (docs/fuzzing.md).
//
// Built with `-Xswiftc -DSAMLH_FUZZ -Xswiftc -sanitize=fuzzer`, it exposes only
// `LLVMFuzzerTestOneInput` and libFuzzer supplies `main`. Built normally, it is a replayer:
// `samlh-fuzz FILE|DIR…` runs every input through the same ``FuzzEntry/run(_:)`` (to
// reproduce a crash under a debugger), and `samlh-fuzz --make-seeds DIR --keys MockIdP/keys`
// writes the seed corpus.

#if SAMLH_FUZZ
/// libFuzzer's callback: one input through ``FuzzEntry/run(_:)``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzEntry.run(input)
    return 0
}

/// libFuzzer's driver (compiler-rt FuzzerDriver.cpp, `extern "C"`). SwiftPM renames an
/// executable's entry point and points `main` at it, so libFuzzer's own `main` is never
/// linked: this target's `main` hands the command line to the driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct SAMLHFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, fuzzTestOneInput))
    }
}
#else
@main
struct SAMLHFuzz {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--make-seeds" {
            guard arguments.count == 4, arguments[2] == "--keys" else {
                throw ReplayError("usage: samlh-fuzz --make-seeds DIR --keys MockIdP/keys")
            }
            let written = try SeedWriter(keysDirectory: URL(fileURLWithPath: arguments[3]))
                .write(to: URL(fileURLWithPath: arguments[1]))
            print("wrote \(written) seeds to \(arguments[1])")
            return
        }
        guard !arguments.isEmpty, !arguments.contains(where: { $0 == "-h" || $0 == "--help" }) else {
            print("usage: samlh-fuzz FILE|DIR…   (replays fuzz inputs through FuzzEntry.run)")
            print("       samlh-fuzz --make-seeds DIR --keys MockIdP/keys")
            return
        }
        var count = 0
        for file in try Replay.files(arguments) {
            let input = try Array(Data(contentsOf: file))
            let started = ContinuousClock.now
            let target = FuzzEntry.run(input)
            let elapsed = ContinuousClock.now - started
            print("\(file.path): \(target?.name ?? "empty") \(input.count) bytes, \(elapsed)")
            count += 1
        }
        print("replayed \(count) inputs without a crash")
    }
}
#endif
