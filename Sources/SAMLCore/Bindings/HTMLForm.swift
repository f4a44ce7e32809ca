/// A `<form>` found in an HTML page: where it posts and what it posts.
public struct HTMLForm: Sendable, Equatable {
    /// One `<input>` (or `<textarea>`) of the form, entities decoded.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
        /// The `type` attribute, lowercased (`text` when absent).
        public let type: String

        public init(name: String, value: String, type: String = "hidden") {
            self.name = name
            self.value = value
            self.type = type
        }
    }

    /// The `action` attribute, entities decoded; nil when absent (the form posts to the page).
    public let action: String?
    /// The `method` attribute, lowercased; `get` when absent (HTML Standard §4.10.18.6).
    public let method: String
    /// The `id` attribute, if any.
    public let id: String?
    /// Named fields in document order (fields without a name are not submitted).
    public let fields: [Field]

    public init(action: String?, method: String, id: String? = nil, fields: [Field]) {
        self.action = action
        self.method = method
        self.id = id
        self.fields = fields
    }

    /// The value of the first field named `name`.
    public func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The body a browser would post: each name and value form-encoded (WHATWG URL §5.2),
    /// submit buttons left out.
    public var formURLEncodedBody: String {
        QueryParameter.formEncoded(fields.filter { $0.type != "submit" && $0.type != "button" && $0.type != "reset" }
            .map { ($0.name, $0.value) })
    }
}
