import Foundation
import Mustache

/// The login, second-factor, consent and error pages of a profile, as Mustache templates.
/// Values are HTML-escaped by Mustache's `{{name}}`; templates never use `{{{…}}}` for
/// anything a client sent.
public struct PageTemplates: Sendable {
    public let login: MustacheTemplate
    public let consent: MustacheTemplate
    public let error: MustacheTemplate
    public let secondFactor: MustacheTemplate

    public init(login: MustacheTemplate, consent: MustacheTemplate, error: MustacheTemplate, secondFactor: MustacheTemplate) {
        self.login = login
        self.consent = consent
        self.error = error
        self.secondFactor = secondFactor
    }

    /// Loads the templates a profile names (paths relative to its directory), falling back to
    /// the built-in pages for those it leaves out.
    public static func load(_ templates: IdPProfile.Templates, directory: URL?) throws -> PageTemplates {
        func template(_ path: String?, key: String, fallback: String) throws -> MustacheTemplate {
            guard let path else { return try MustacheTemplate(string: fallback) }
            let url = directory.map { $0.appendingPathComponent(path) } ?? URL(fileURLWithPath: path)
            let text: String
            do {
                text = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw ConfigurationError(file: url.path, line: nil, message: "templates.\(key): cannot read the template (\(error.localizedDescription))")
            }
            do {
                return try MustacheTemplate(string: text)
            } catch {
                throw ConfigurationError(file: url.path, line: nil, message: "templates.\(key): not a valid Mustache template: \(error)")
            }
        }
        return PageTemplates(
            login: try template(templates.login, key: "login", fallback: DefaultPages.login),
            consent: try template(templates.consent, key: "consent", fallback: DefaultPages.consent),
            error: try template(templates.error, key: "error", fallback: DefaultPages.error),
            secondFactor: try template(templates.secondFactor, key: "second_factor", fallback: DefaultPages.secondFactor))
    }
}

/// The built-in pages (a plain, generic IdP).
enum DefaultPages {
    static let login = """
    <!DOCTYPE html>
    <html><head><meta charset="utf-8"><title>Log in</title></head>
    <body>
    <h1>Log in to {{sp}}</h1>
    {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
    <form method="post" action="{{action}}">
    {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/hidden}}<label>Username <input type="text" name="{{usernameField}}" value="{{username}}"></label>
    <label>Password <input type="password" name="{{passwordField}}"></label>
    <button type="submit" name="{{submitName}}" value="{{submitValue}}">Login</button>
    </form>
    </body></html>

    """
    static let consent = """
    <!DOCTYPE html>
    <html><head><meta charset="utf-8"><title>Information Release</title></head>
    <body>
    <h1>You are about to access {{sp}}</h1>
    <form method="post" action="{{action}}">
    {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/hidden}}<table>{{#attributes}}<tr><td>{{name}}</td><td>{{value}}</td></tr>
    {{/attributes}}</table>
    <button type="submit" name="_eventId_proceed" value="Accept">Accept</button>
    <button type="submit" name="_eventId_AttributeReleaseRejected" value="Reject">Reject</button>
    </form>
    </body></html>

    """
    static let error = """
    <!DOCTYPE html>
    <html><head><meta charset="utf-8"><title>{{title}}</title></head>
    <body><h1>{{title}}</h1><p class="error" role="alert">{{message}}</p></body></html>

    """
    static let secondFactor = """
    <!DOCTYPE html>
    <html><head><meta charset="utf-8"><title>Second factor</title></head>
    <body>
    <h1>Enter the code from your authenticator</h1>
    {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
    <form method="post" action="{{action}}">
    {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/hidden}}<label>Code <input type="text" name="{{codeField}}" autocomplete="one-time-code"></label>
    <button type="submit" name="_eventId_proceed" value="Verify">Verify</button>
    </form>
    </body></html>

    """
}
