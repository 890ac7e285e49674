#if Studio
import Foundation

/// Text made safe for HTML and URLs. Everything the studio shows comes from a store another
/// program wrote — entity names, values, authors — so every piece is escaped where it is put.
enum HTML {
    /// `text` for an element's content or a quoted attribute value.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// Characters left as they are in a path segment or a query value.
    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// `text` percent-encoded as one path segment or one query value.
    static func component(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// A link target: path segments and query items, each encoded (escape the result for HTML).
    static func url(_ segments: [String], _ query: [(String, String)] = []) -> String {
        let path = "/" + segments.map(component).joined(separator: "/")
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\(component($0.0))=\(component($0.1))" }.joined(separator: "&")
    }

    /// `<a href="…">text</a>`, both escaped.
    static func link(_ target: String, _ text: String, attributes: String = "") -> String {
        "<a href=\"\(escape(target))\"\(attributes.isEmpty ? "" : " " + attributes)>\(escape(text))</a>"
    }
}
#endif
