#if Studio
import Mustache

/// HTML escaping one Unicode scalar at a time. swift-mustache's own HTML escaping works on
/// `Character`s, and a quote followed by a combining mark (`"` + U+0301) is one `Character` that
/// is not `"`, so it went out raw and closed an attribute: `x"\u{301} autofocus onfocus=alert(1)`
/// in a note ran script for every visitor. Here every `&`, `<`, `>`, `"` and `'` scalar is
/// escaped, whatever follows it.
///
/// The page template selects it with `{{% CONTENT_TYPE: HTML_SCALARS}}`.
struct ScalarHTMLContentType: MustacheContentType {
    static let name = "HTML_SCALARS"

    func escapeText(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
#endif
