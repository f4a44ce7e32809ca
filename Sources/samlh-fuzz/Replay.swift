import Foundation

/// The files a replay reads: each argument a file, or a directory whose regular files are
/// read in name order (not recursively, as libFuzzer writes its corpus).
enum Replay {
    static func files(_ arguments: [String]) throws -> [URL] {
        var result: [URL] = []
        for argument in arguments {
            let url = URL(fileURLWithPath: argument)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ReplayError("\(argument): no such file or directory")
            }
            if !isDirectory.boolValue {
                result.append(url)
                continue
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            for name in names where !name.hasPrefix(".") {
                let child = url.appendingPathComponent(name)
                var childIsDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: child.path, isDirectory: &childIsDirectory), !childIsDirectory.boolValue {
                    result.append(child)
                }
            }
        }
        return result
    }
}

/// A usage or file error, printed as is.
struct ReplayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
