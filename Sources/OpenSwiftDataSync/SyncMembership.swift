import Foundation

/// The edits of a to-many relationship that travels member by member (a many-to-many, or a
/// to-many without an inverse): each member's joining and leaving, with its clock, kept in an
/// object's ``SyncedObject/clocks`` under `name+UUID` and `name-UUID` (no property name holds
/// `+` or `-`). A member is in the relationship when its later edit is a joining, so two devices
/// adding different members both keep theirs, and a member removed after it was added stays out.
enum SyncMembership {
    /// The key of `member` joining (`present`) or leaving `property`.
    static func key(_ property: String, _ member: UUID, present: Bool) -> String {
        property + (present ? "+" : "-") + member.uuidString
    }

    /// The edits of `property` in `clocks`, by the key's part after the property name
    /// (`+UUID`, `-UUID`): what a record carries.
    static func edits(of property: String, in clocks: [String: SyncClock]) -> [String: SyncClock] {
        var edits: [String: SyncClock] = [:]
        for (key, clock) in clocks where key.count > property.count && key.hasPrefix(property) {
            let rest = key.dropFirst(property.count)
            guard rest.first == "+" || rest.first == "-", UUID(uuidString: String(rest.dropFirst())) != nil else { continue }
            edits[String(rest)] = clock
        }
        return edits
    }

    /// A record's edit (`+UUID` or `-UUID`): the member and whether it joins.
    static func parse(_ edit: String) -> (member: UUID, present: Bool)? {
        guard let sign = edit.first, sign == "+" || sign == "-", let member = UUID(uuidString: String(edit.dropFirst())) else { return nil }
        return (member, sign == "+")
    }

    /// Whether `member` is in `property` by the edits in `clocks` (the later of its joining and
    /// leaving; neither: not in it).
    static func isMember(_ member: UUID, of property: String, in clocks: [String: SyncClock]) -> Bool {
        guard let joined = clocks[key(property, member, present: true)] else { return false }
        guard let left = clocks[key(property, member, present: false)] else { return true }
        return joined > left
    }

    /// The members `clocks` has in `property`.
    static func members(of property: String, in clocks: [String: SyncClock]) -> Set<UUID> {
        var members = Set<UUID>()
        for edit in edits(of: property, in: clocks).keys {
            if let (member, present) = parse(edit), present, isMember(member, of: property, in: clocks) { members.insert(member) }
        }
        return members
    }
}
