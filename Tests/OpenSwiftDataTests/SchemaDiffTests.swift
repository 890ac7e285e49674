import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
import TestModels

/// `SchemaDiff`: every change the Migrations article lists, found between two versions, with the
/// verdict the migration reaches — and, for the verdicts that depend on nothing but the models,
/// the same answer as opening a store.
@Suite struct SchemaDiffTests {
    /// What DiffV1 → DiffV2 must report: entity, property, kind, verdict.
    static let expected: [(String, String?, SchemaDiff.Kind, SchemaDiff.Verdict)] = [
        ("Newcomer", nil, .entityAdded, .lightweight),
        ("Legacy", nil, .entityRemoved, .lightweight),
        ("Shop", "added", .attributeAdded, .lightweight),
        ("Shop", "colour", .attributeAdded, .lightweight),
        ("Shop", "serial", .attributeAdded, .dependsOnData),
        ("Shop", "obsolete", .attributeRemoved, .lightweight),
        ("Shop", "title", .attributeRenamed, .lightweight),
        ("Shop", "nickname", .attributeMadeNonOptional, .lightweight),
        ("Shop", "motto", .attributeMadeNonOptional, .dependsOnData),
        ("Shop", "founded", .attributeMadeOptional, .lightweight),
        ("Shop", "rating", .attributeTypeChanged, .lightweight),
        ("Shop", "label", .attributeTypeChanged, .customStage),
        ("Shop", "friends", .relationshipAdded, .lightweight),
        ("Shop", "gone", .relationshipRemoved, .lightweight),
        ("Shop", "helper", .relationshipCardinalityChanged, .lightweight),
        ("Shop", "tags", .relationshipCardinalityChanged, .dependsOnData),
        ("Shop", "partner", .relationshipDestinationChanged, .lightweight),
        ("Shop", "keeper", .deleteRuleChanged, .lightweight),
        ("Shop", "title", .uniquenessAdded, .dependsOnData),
        ("Shop", "code", .uniquenessRemoved, .lightweight),
        ("Shop", "rating", .indexAdded, .lightweight),
        ("Shop", "city", .indexRemoved, .lightweight),
    ]

    static let diff = SchemaDiff(from: DiffV1.self, to: DiffV2.self)

    @Test(arguments: expected.indices)
    func eachChangeIsFoundWithItsVerdict(_ index: Int) throws {
        let (entity, property, kind, verdict) = Self.expected[index]
        let change = try #require(Self.diff.changes.first { $0.entityName == entity && $0.propertyName == property && $0.kind == kind },
                                  "\(entity).\(property ?? "") \(kind.rawValue) missing from\n\(Self.diff)")
        #expect(change.verdict == verdict, "\(change)")
        #expect(!change.detail.isEmpty)
    }

    @Test func nothingElseIsReported() {
        #expect(Self.diff.changes.count == Self.expected.count, "\(Self.diff)")
        #expect(Self.diff.verdict == .customStage)
        #expect(SchemaDiff(from: DiffV1.self, to: DiffV1.self).changes.isEmpty)
    }

    @Test func thePrintoutNamesEachChange() {
        let text = Self.diff.description
        #expect(text.hasPrefix("Schema 1.0.0 → 2.0.0 (a stage of a plan, none declared: lightweight): needs a custom stage"), "\(text)")
        #expect(text.contains("Shop.label"))
        #expect(text.contains("type changed: needs a custom stage — String values cannot become Int"))
        #expect(text.contains("existing models get its initial value, \"grey\""))
    }

    @Test func anEntityRemovedWithoutAPlanDependsOnItsRows() throws {
        let diff = SchemaDiff(from: Schema(versionedSchema: DiffV1.self), to: Schema(versionedSchema: DiffV2.self))
        let removed = try #require(diff.changes.first { $0.kind == .entityRemoved })
        #expect(removed.entityName == "Legacy" && removed.verdict == .dependsOnData)
        #expect(!diff.isPlanStage && diff.stage == nil)
    }

    @Test func anotherAppsModelsAndAnOlderVersionAreRefused() {
        let other = SchemaDiff(from: Schema([Purchase.self, Buyer.self]), to: Schema(versionedSchema: DiffV1.self))
        #expect(other.changes.contains { $0.kind == .noEntityInCommon && $0.verdict == .refused })
        let backwards = SchemaDiff(from: Schema(versionedSchema: DiffV2.self), to: Schema(versionedSchema: DiffV1.self))
        #expect(backwards.changes.contains { $0.kind == .olderVersion && $0.verdict == .refused })
        #expect(backwards.verdict == .refused)
    }

    @Test func aPlanStepCalledLightweightThatIsNotIsAProblem() throws {
        let lightweight = try #require(SchemaDiff.steps(of: DiffLightweightPlan.self).first)
        #expect(lightweight.stage == "lightweight")
        #expect(lightweight.problems.map(\.propertyName) == ["label"])
        #expect(lightweight.description.contains("Problem: the plan makes this step lightweight, and Shop.label needs a custom stage"))
        let custom = try #require(SchemaDiff.steps(of: DiffCustomPlan.self).first)
        #expect(custom.stage == "custom" && custom.problems.isEmpty)
    }

    /// The verdicts agree with opening a store: a V1 store with data opens with V2 through a
    /// custom stage only where the diff says so — the type change refuses the lightweight step.
    @Test func aLightweightStepWithACustomChangeIsRefusedOnOpening() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: DiffV1.self), configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            context.insert(DiffV1.Shop(code: "a"))
            try context.save()
        }
        let before = try Data(contentsOf: url)
        #expect(throws: SwiftDataError.schemaMismatch) {
            _ = try ModelContainer(for: Schema(versionedSchema: DiffV2.self), migrationPlan: DiffLightweightPlan.self, configurations: [ModelConfiguration(url: url)])
        }
        #expect(try Data(contentsOf: url) == before)
    }

    /// A store file's recorded schema against models: nothing against the models that wrote it;
    /// against the next version, the changes a file records (no delete rules: it keeps none).
    @Test func aStoreFileIsComparedWithModels() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: DiffV1.self), configurations: [ModelConfiguration(url: url)])
            ModelContext(container).insert(DiffV1.Shop(code: "a"))
        }
        let same = try SchemaDiff(store: url, to: Schema(versionedSchema: DiffV1.self))
        #expect(same.changes.isEmpty, "\(same)")
        #expect(same.fromVersion == Schema.Version(1, 0, 0))
        let next = try SchemaDiff(store: url, to: Schema(versionedSchema: DiffV2.self))
        let found = Set(next.changes.map { "\($0.entityName).\($0.propertyName ?? "") \($0.kind.rawValue) \($0.verdict)" })
        let expected = Set(Self.expected.filter { $0.2 != .deleteRuleChanged }.map { entity, property, kind, verdict in
            // Opening with other models never removes an entity's rows.
            "\(entity).\(property ?? "") \(kind.rawValue) \(kind == .entityRemoved ? .dependsOnData : verdict)"
        })
        #expect(found == expected, "\(next)")
        // Apple's files keep their model in a form not read here.
        if let apple = ResourcesManager.fixture {
            #expect(throws: SwiftDataError.unknownSchema) { try SchemaDiff(store: apple, to: Schema(ResourcesManager.types)) }
        }
    }
}
