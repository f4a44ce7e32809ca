internal import CXMLSec

/// One-time initialisation of libxml2, libxmlsec1 and its OpenSSL backend.
///
/// A global `let` is initialised lazily and exactly once, from whichever thread gets there
/// first (NOTES-xmlsec.md, "Concurrency"). Every entry point that touches libxml2 or xmlsec
/// calls ``XMLLibrary/ensureInitialized()`` first.
public enum XMLLibrary {
    /// Why the native libraries could not be used.
    public struct InitializationError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    private static let state: Result<Void, InitializationError> = {
        let rc = cxmlsec_initialize()
        if rc != 0 {
            let step = ["xmlSecInit", "xmlSecCheckVersion", "xmlSecOpenSSLAppInit", "xmlSecOpenSSLInit"]
            let name = (-Int(rc) - 1) < step.count ? step[-Int(rc) - 1] : "step \(rc)"
            return .failure(InitializationError(description: "libxmlsec1 initialisation failed at \(name)"))
        }
        if let problem = checkStructLayout() {
            return .failure(InitializationError(description: problem))
        }
        return .success(())
    }()

    /// Initialises the libraries once; throws when they are unusable (wrong version, or a
    /// struct layout that does not match the headers this module was compiled against).
    public static func ensureInitialized() throws {
        try state.get()
    }

    /// xmlsec's struct layout depends on `XMLSEC_NO_SIZE_T`. If the defines in shim.h do not
    /// match the library's build, writing fields of xmlsec structs corrupts memory: check a
    /// buffer's fields against the accessor functions before anything else runs.
    private static func checkStructLayout() -> String? {
        guard let buffer = xmlSecBufferCreate(16) else { return "xmlSecBufferCreate failed" }
        defer { xmlSecBufferDestroy(buffer) }
        guard xmlSecBufferSetSize(buffer, 7) == 0 else { return "xmlSecBufferSetSize failed" }
        let sizeMatches = buffer.pointee.size == xmlSecBufferGetSize(buffer)
        let maxMatches = buffer.pointee.maxSize == xmlSecBufferGetMaxSize(buffer)
        let dataMatches = buffer.pointee.data == xmlSecBufferGetData(buffer)
        if sizeMatches && maxMatches && dataMatches && buffer.pointee.size == 7 {
            return nil
        }
        return "libxmlsec1 struct layout does not match shim.h (XMLSEC_NO_SIZE_T mismatch?)"
    }

    /// The last error libxmlsec1 reported on this thread, if any. Read it with no `await`
    /// between the failing call and this one.
    static func takeLastXMLSecError() -> String? {
        let buffer = cxmlsec_last_error_buffer()!
        guard buffer.pointee != 0 else { return nil }
        let text = String(cString: buffer)
        cxmlsec_clear_last_error()
        return text
    }

    static func clearLastXMLSecError() {
        cxmlsec_clear_last_error()
    }
}
