#if Studio
import Foundation
import OpenSwiftData

/// An expense's `persistentModelID` as URL-safe text and back: its `Codable` form in base64url,
/// so the API's ids work the same on SQLite and PostgreSQL. Keys sorted, so one expense always
/// has the same id.
public enum ExpenseIdentifier {
    public static func string(_ id: PersistentIdentifier) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(id).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The identifier, or `nil` for text that is not one.
    public static func identifier(_ text: String) -> PersistentIdentifier? {
        guard text.count <= 512 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDecoder().decode(PersistentIdentifier.self, from: data)
    }
}
#endif
