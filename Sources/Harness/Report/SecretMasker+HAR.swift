import Foundation
import MockServers

extension SecretMasker {
    /// A HAR with every secret this masker knows masked as the report's trace masks it:
    /// credentials in `Authorization` and `Proxy-Authorization`, cookie values, the
    /// scenario's password and one-time code in URLs, forms and bodies, tickets and tokens.
    /// Binary bodies (base64 `content`) are left out: nothing in them can be read safely.
    public func har(_ har: HAR) -> HAR {
        var copy = har
        copy.log.entries = har.log.entries.map(entry)
        return copy
    }

    func entry(_ entry: HAR.Entry) -> HAR.Entry {
        var copy = entry
        copy.request.url = text(entry.request.url)
        copy.request.headers = entry.request.headers.map { .init(name: $0.name, value: header(name: $0.name, value: $0.value)) }
        copy.request.cookies = entry.request.cookies.map { .init(name: $0.name, value: Self.mark) }
        copy.request.queryString = entry.request.queryString.map { .init(name: $0.name, value: text($0.value)) }
        if var post = entry.request.postData {
            post.params = post.params?.map { .init(name: $0.name, value: text($0.value)) }
            post.text = post._encoding == "base64" ? "" : text(post.text)
            copy.request.postData = post
        }
        copy.response.headers = entry.response.headers.map { .init(name: $0.name, value: header(name: $0.name, value: $0.value)) }
        copy.response.cookies = entry.response.cookies.map { .init(name: $0.name, value: Self.mark) }
        copy.response.redirectURL = text(entry.response.redirectURL)
        if entry.response.content.encoding == "base64" {
            copy.response.content.text = nil
            copy.response.content.encoding = nil
        } else {
            copy.response.content.text = entry.response.content.text.map(text)
        }
        copy._annotations = entry._annotations?.mapValues(text)
        return copy
    }
}
