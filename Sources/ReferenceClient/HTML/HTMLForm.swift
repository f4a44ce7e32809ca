import Foundation

/// An HTML form as a browser would submit it (WHATWG HTML §4.10.21.4 "constructing the
/// entry list"), read with a small tag scanner — enough for IdP login, consent and
/// auto-post pages, not a general HTML parser.
struct HTMLForm {
    struct Control {
        var tag: String          // input, button, select, textarea
        var type: String         // lower-cased input type ("text" default; "submit" for button)
        var name: String
        var value: String
        var checked: Bool
    }

    var action: String
    var method: String
    var id: String?
    var controls: [Control]

    /// Every `<form>` of `html`, in document order.
    static func forms(in html: String) -> [HTMLForm] {
        var forms: [HTMLForm] = []
        var current: HTMLForm?
        var selectName: String?
        var selectOptions: [(value: String, selected: Bool)] = []
        var textareaName: String?
        var textareaStart: String.Index?
        for tag in HTMLTag.scan(html) {
            switch tag.name {
            case "form":
                current = HTMLForm(action: tag.attributes["action"] ?? "", method: (tag.attributes["method"] ?? "get").lowercased(),
                                   id: tag.attributes["id"], controls: [])
            case "/form":
                if let form = current { forms.append(form) }
                current = nil
            case "input":
                let type = (tag.attributes["type"] ?? "text").lowercased()
                guard let name = tag.attributes["name"] else { continue }
                let defaultValue = type == "checkbox" || type == "radio" ? "on" : ""
                current?.controls.append(Control(tag: "input", type: type, name: name, value: tag.attributes["value"] ?? defaultValue,
                                                 checked: tag.attributes["checked"] != nil))
            case "button":
                let type = (tag.attributes["type"] ?? "submit").lowercased()
                guard let name = tag.attributes["name"] else { continue }
                current?.controls.append(Control(tag: "button", type: type, name: name, value: tag.attributes["value"] ?? "", checked: false))
            case "select":
                selectName = tag.attributes["name"]
                selectOptions = []
            case "option":
                selectOptions.append((tag.attributes["value"] ?? "", tag.attributes["selected"] != nil))
            case "/select":
                if let name = selectName, let chosen = selectOptions.first(where: \.selected) ?? selectOptions.first {
                    current?.controls.append(Control(tag: "select", type: "select", name: name, value: chosen.value, checked: true))
                }
                selectName = nil
            case "textarea":
                textareaName = tag.attributes["name"]
                textareaStart = tag.end
            case "/textarea":
                if let name = textareaName, let start = textareaStart, start <= tag.start {
                    current?.controls.append(Control(tag: "textarea", type: "textarea", name: name,
                                                     value: HTMLText.decodeEntities(String(html[start..<tag.start])), checked: false))
                }
                textareaName = nil
            default:
                continue
            }
        }
        if let form = current { forms.append(form) }
        return forms
    }

    /// The value of the first control named `name`.
    func value(_ name: String) -> String? { controls.first { $0.name == name }?.value }

    func has(_ name: String) -> Bool { controls.contains { $0.name == name } }

    /// The first password field's name.
    var passwordField: String? { controls.first { $0.type == "password" }?.name }

    /// The user-name field: the last text/email control before the password field.
    var usernameField: String? {
        guard let passwordIndex = controls.firstIndex(where: { $0.type == "password" }) else { return nil }
        return controls[..<passwordIndex].last { ["text", "email"].contains($0.type) }?.name
    }

    /// The entry list: successful controls with `overrides` applied, the submitter (a named
    /// submit control) included, other submit buttons left out.
    func entries(_ overrides: [String: String], submitter: String? = nil) -> [(String, String)] {
        var list: [(String, String)] = []
        var chosenSubmitter = submitter ?? controls.first { $0.type == "submit" || $0.type == "image" }?.name
        for control in controls {
            switch control.type {
            case "submit", "image", "button", "reset":
                if control.type != "reset", control.type != "button", control.name == chosenSubmitter {
                    list.append((control.name, control.value))
                    chosenSubmitter = nil
                }
            case "checkbox", "radio":
                if control.checked || overrides[control.name] == control.value { list.append((control.name, control.value)) }
            case "file":
                continue
            default:
                list.append((control.name, overrides[control.name] ?? control.value))
            }
        }
        return list
    }

    /// The action resolved against the page URL (an empty action is the page itself).
    func actionURL(relativeTo page: URL) -> URL? {
        action.isEmpty ? page : URL(string: action, relativeTo: page)?.absoluteURL
    }
}

/// A start or end tag found by ``scan(_:)``; attribute values entity-decoded.
struct HTMLTag {
    var name: String
    var attributes: [String: String]
    var start: String.Index
    var end: String.Index

    /// Start and end tags of `html`, lower-cased names; comments and scripts skipped.
    static func scan(_ html: String) -> [HTMLTag] {
        var tags: [HTMLTag] = []
        var index = html.startIndex
        while let open = html[index...].firstIndex(of: "<") {
            if html[open...].hasPrefix("<!--") {
                index = html[open...].range(of: "-->")?.upperBound ?? html.endIndex
                continue
            }
            var cursor = html.index(after: open)
            let nameStart = cursor
            while cursor < html.endIndex, !" \t\r\n>/".contains(html[cursor]) || (cursor == nameStart && html[cursor] == "/") {
                cursor = html.index(after: cursor)
            }
            let name = html[nameStart..<cursor].lowercased()
            var attributes: [String: String] = [:]
            // Attributes: name, optional = and a quoted or bare value (HTML §13.2.5.32–38).
            while cursor < html.endIndex, html[cursor] != ">" {
                if " \t\r\n/".contains(html[cursor]) { cursor = html.index(after: cursor); continue }
                let attributeStart = cursor
                while cursor < html.endIndex, !" \t\r\n=>".contains(html[cursor]) { cursor = html.index(after: cursor) }
                let attributeName = html[attributeStart..<cursor].lowercased()
                while cursor < html.endIndex, " \t\r\n".contains(html[cursor]) { cursor = html.index(after: cursor) }
                var value = ""
                if cursor < html.endIndex, html[cursor] == "=" {
                    cursor = html.index(after: cursor)
                    while cursor < html.endIndex, " \t\r\n".contains(html[cursor]) { cursor = html.index(after: cursor) }
                    if cursor < html.endIndex, html[cursor] == "\"" || html[cursor] == "'" {
                        let quote = html[cursor]
                        let valueStart = html.index(after: cursor)
                        let valueEnd = html[valueStart...].firstIndex(of: quote) ?? html.endIndex
                        value = String(html[valueStart..<valueEnd])
                        cursor = valueEnd < html.endIndex ? html.index(after: valueEnd) : valueEnd
                    } else {
                        let valueStart = cursor
                        while cursor < html.endIndex, !" \t\r\n>".contains(html[cursor]) { cursor = html.index(after: cursor) }
                        value = String(html[valueStart..<cursor])
                    }
                }
                if !attributeName.isEmpty, attributes[attributeName] == nil {
                    attributes[attributeName] = HTMLText.decodeEntities(value)
                }
            }
            let end = cursor < html.endIndex ? html.index(after: cursor) : html.endIndex
            tags.append(HTMLTag(name: name, attributes: attributes, start: open, end: end))
            index = end
            if name == "script" || name == "style" {
                index = html[end...].range(of: "</\(name)", options: .caseInsensitive)?.lowerBound ?? html.endIndex
            }
        }
        return tags
    }
}
