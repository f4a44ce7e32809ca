/// The words real HTTP libraries use for a transport fault, so `expect.error: "@short-body"`
/// accepts the fault in any of them (issue 35, item 3): a client that says "Content-Length
/// (2124) does not match response body length (1062)" or `Get "…": EOF` named a cut-off body
/// exactly, in its own library's words, without the word "connection".
///
/// Collected from the libraries' sources and documented messages (lowercased substrings):
/// - Python: `http.client.IncompleteRead(1062 bytes read, 1062 more expected)`,
///   `RemoteDisconnected('Remote end closed connection without response')`; urllib3
///   `ProtocolError('Connection broken: IncompleteRead…')`, `ConnectionResetError`.
/// - curl: CURLE_PARTIAL_FILE "transfer closed with 1062 bytes remaining to read",
///   CURLE_GOT_NOTHING "Empty reply from server", CURLE_RECV_ERROR "Recv failure: Connection
///   reset by peer".
/// - wget: "Read error at byte 1062/2124", "No data received.", "Connection closed at byte".
/// - Go net/http: `io.ErrUnexpectedEOF` "unexpected EOF", `Get "…": EOF`,
///   "connection reset by peer".
/// - Java: HttpURLConnection "Premature EOF", "Unexpected end of file from server",
///   "Connection reset", "Error writing to server" (a write into a connection the server
///   closed); Apache HttpClient "Premature end of Content-Length delimited message
///   body", `NoHttpResponseException` "failed to respond"; OkHttp "unexpected end of stream".
/// - Ruby: `EOFError` "end of file reached", `Net::HTTP::Persistent::Error` "too many
///   connection resets", `Errno::ECONNRESET`.
/// - Node: "socket hang up", undici "other side closed", fetch "terminated".
/// - Perl LWP: "Server closed connection without sending any data back", "500 read failed".
/// - .NET: "The response ended prematurely"; Swift URLSession: "The network connection was
///   lost."
public enum FaultWords {
    /// The classes a scenario's `expect.error` may name with a leading `@`.
    public static let classes: [String: [String]] = [
        // The status line, the headers with the full Content-Length, half the body, a close.
        "short-body": common + ["content-length", "incomplete", "premature", "bytes remaining", "more expected",
                                "partial", "truncat", "short read", "end of stream", "read error", "body length",
                                "does not match", "mismatch", "read failed"],
        // The connection accepted, no answer, closed.
        "connection-lost": common + ["empty reply", "no data", "without response", "without sending", "hang up",
                                     "failed to respond", "premature", "end of stream", "disconnect", "no response",
                                     "writing to server"],
        // Half the body, then a TCP reset.
        "connection-reset": common + ["econnreset", "broken pipe", "forcibly closed", "aborted", "incomplete",
                                      "premature", "partial", "bytes remaining", "read error", "read failed"],
    ]

    private static let common = ["connection", "eof", "end of file", "closed", "reset", "lost", "terminated"]

    /// The words `word` stands for: a class's words for `@name`, else the word itself; nil for
    /// an unknown class.
    public static func expand(_ word: String) -> [String]? {
        guard word.hasPrefix("@") else { return [word] }
        return classes[String(word.dropFirst())]
    }

    /// How a report shows an expected error: `@short-body` becomes "a cut-off body (connection,
    /// eof, …)".
    public static func describe(_ error: String) -> String {
        error.split(separator: "|").map { part -> String in
            let word = part.trimmingCharacters(in: .whitespaces)
            guard word.hasPrefix("@"), let words = classes[String(word.dropFirst())] else { return word }
            return "\(word) (\(words.prefix(6).joined(separator: ", ")), …)"
        }.joined(separator: "|")
    }
}
