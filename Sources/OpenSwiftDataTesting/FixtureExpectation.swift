import Foundation
import OpenSwiftData

/// Something a fixture must still hold once migrated, checked by
/// ``MigrationFixtures/replay(_:migrationPlan:expecting:check:)`` in a context on the migrated copy.
///
/// ```swift
/// try fixtures.replay(Schema(versionedSchema: AppSchemaV3.self), migrationPlan: AppPlan.self, expecting: [
///     .keepsEveryModel(of: Expense.self),
///     .models(Expense.self, where: #Predicate { $0.note == "Lunch" }),
/// ])
/// ```
public struct FixtureExpectation {
    /// What is expected, for messages.
    public let name: String
    let failure: (ModelContext, FixtureManifest?) throws -> String?

    /// Models of `type` matching `predicate` (every one without it): exactly `count` of them,
    /// or with `count` `nil`, at least one.
    public static func models<T: PersistentModel>(_ type: T.Type, where predicate: Predicate<T>? = nil, count: Int? = nil) -> FixtureExpectation {
        let what = "\(count.map(String.init) ?? "some") \(Schema.entityName(for: T.self)) models\(predicate == nil ? "" : " matching the predicate")"
        return FixtureExpectation(name: what) { context, _ in
            let found = try context.fetchCount(FetchDescriptor<T>(predicate: predicate))
            if let count, found != count { return "expected \(what), found \(found)" }
            if count == nil, found == 0 { return "expected \(what), found none" }
            return nil
        }
    }

    /// As many models of `type` as the fixture's manifest says it held (nothing is checked for
    /// a fixture without a manifest, or whose manifest does not name the entity).
    public static func keepsEveryModel<T: PersistentModel>(of type: T.Type) -> FixtureExpectation {
        let entity = Schema.entityName(for: T.self)
        return FixtureExpectation(name: "every \(entity) kept") { context, manifest in
            guard let before = manifest?.rows[entity] else { return nil }
            let after = try context.fetchCount(FetchDescriptor<T>())
            return after == before ? nil : "the fixture held \(before) \(entity) models and \(after) are left"
        }
    }

    /// Any check of the migrated models: return a message to fail, `nil` to pass.
    public static func custom(_ name: String, _ failure: @escaping (ModelContext) throws -> String?) -> FixtureExpectation {
        FixtureExpectation(name: name) { context, _ in try failure(context) }
    }
}
