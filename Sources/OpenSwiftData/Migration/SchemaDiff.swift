import Foundation

/// Every difference between two versions of a schema, each with what migrating a store from the
/// first to the second does about it: the verdicts and the words of the *Migrations* article.
///
/// ```swift
/// let diff = SchemaDiff(from: ExpensesSchemaV2.self, to: ExpensesSchemaV3.self)
/// print(diff)
/// // Schema 2.0.0 → 3.0.0 (a stage of a plan): lightweight where the stored data allows
/// //   Category.name   unique constraint added   depends on the data: the index is created; …
/// if diff.verdict >= .customStage { … }
/// ```
///
/// Between two ``VersionedSchema``s the diff reads as a stage of a ``SchemaMigrationPlan``
/// (which may remove an entity with its rows); between two ``Schema``s, or a store file's
/// recorded schema and models (``init(store:to:)``), as the automatic migration that opening a
/// store with other models runs (which never does). To check every
/// step of a plan at once, use ``steps(of:)``. The diff compares models only; whether a store's
/// data allows a change marked ``Verdict/dependsOnData`` is for a fixture of that store to show
/// (see the *Shipping migrations safely* article).
public struct SchemaDiff: Sendable, CustomStringConvertible {
    /// The version migrated from.
    public let fromVersion: Schema.Version
    /// The version migrated to.
    public let toVersion: Schema.Version
    /// Whether the diff reads as a stage of a plan (entities may be removed with their rows).
    public let isPlanStage: Bool
    /// The stage the plan has for this step: `"lightweight"`, `"custom"`, or `nil` where the plan
    /// has none (the step is then lightweight) or the diff is not a plan's step.
    public let stage: String?
    /// Every difference, entity by entity, in the order of the newer schema.
    public let changes: [Change]

    /// What migrating does about a change, from the least to the most work.
    public enum Verdict: Int, Sendable, Comparable, CustomStringConvertible {
        /// A lightweight migration makes it, whatever the store holds.
        case lightweight
        /// A lightweight migration makes it where the stored data allows (an empty table, no
        /// duplicates, no `nil`s); otherwise opening is refused and the store left unchanged.
        case dependsOnData
        /// A lightweight migration cannot make it: it needs a `MigrationStage.custom` (the change's
        /// detail says how).
        case customStage
        /// No migration makes it.
        case refused

        public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .lightweight: return "lightweight"
            case .dependsOnData: return "depends on the data"
            case .customStage: return "needs a custom stage"
            case .refused: return "refused"
            }
        }
    }

    /// The kinds of change.
    public enum Kind: String, Sendable, Hashable {
        /// A model class the older schema lacks: an empty table.
        case entityAdded = "entity added"
        /// A model class the newer schema lacks.
        case entityRemoved = "entity removed"
        /// A class moved into or out of a class hierarchy.
        case superentityChanged = "superclass changed"
        /// An attribute the older schema lacks.
        case attributeAdded = "attribute added"
        /// An attribute the newer schema lacks.
        case attributeRemoved = "attribute removed"
        /// An attribute declared with `originalName:` naming its older self.
        case attributeRenamed = "attribute renamed"
        /// An attribute of another Swift type.
        case attributeTypeChanged = "type changed"
        /// A non-optional attribute made optional.
        case attributeMadeOptional = "made optional"
        /// An optional attribute made non-optional.
        case attributeMadeNonOptional = "made non-optional"
        /// An attribute kept another way (`.codable`, a transformer).
        case attributeStorageChanged = "stored differently"
        /// A relationship the older schema lacks.
        case relationshipAdded = "relationship added"
        /// A relationship the newer schema lacks.
        case relationshipRemoved = "relationship removed"
        /// A relationship declared with `originalName:` naming its older self.
        case relationshipRenamed = "relationship renamed"
        /// A relationship to another entity than before.
        case relationshipDestinationChanged = "destination changed"
        /// A to-one made to-many, or a to-many made to-one.
        case relationshipCardinalityChanged = "to-one/to-many changed"
        /// A relationship with another delete rule.
        case deleteRuleChanged = "delete rule changed"
        /// A `#Unique` constraint or `.unique` attribute the older schema lacks.
        case uniquenessAdded = "unique constraint added"
        /// A unique constraint the newer schema lacks.
        case uniquenessRemoved = "unique constraint removed"
        /// An `#Index` the older schema lacks.
        case indexAdded = "index added"
        /// An `#Index` the newer schema lacks.
        case indexRemoved = "index removed"
        /// A store of none of the models' entities: another application's.
        case noEntityInCommon = "no entity in common"
        /// A store written by a newer version than the models.
        case olderVersion = "older version"
    }

    /// One difference and its verdict.
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        /// The entity (in the newer schema, or the older one for a removed entity).
        public let entityName: String
        /// The property or properties concerned, if the change is not the whole entity's.
        public let propertyName: String?
        /// What changed.
        public let kind: Kind
        /// What migrating does about it.
        public let verdict: Verdict
        /// What existing data gets (for a lightweight change), or what decides and what to do.
        public let detail: String

        public var description: String {
            "\(entityName)\(propertyName.map { ".\($0)" } ?? ""): \(kind.rawValue), \(verdict) — \(detail)"
        }
    }

    /// The most work any change needs: ``Verdict/lightweight`` for no change at all.
    public var verdict: Verdict { changes.map(\.verdict).max() ?? .lightweight }

    /// The changes a plan's stage cannot make as declared: a change that needs a custom stage,
    /// or a refused one, in a step the plan leaves lightweight.
    public var problems: [Change] {
        changes.filter { $0.verdict == .refused || ($0.verdict == .customStage && stage != "custom") }
    }

    /// The differences between two schemas, read as the automatic migration that opening a store
    /// written with `old` with `new`'s models runs.
    public init(from old: Schema, to new: Schema) {
        self.init(old, new, isPlanStage: false, stage: nil)
    }

    /// The differences between what an OpenSwiftData store file recorded when it was last
    /// written and `new`'s models, read as the automatic migration that opening it runs.
    ///
    /// ```swift
    /// let diff = try SchemaDiff(store: URL(fileURLWithPath: "default.store"), to: Schema(versionedSchema: AppSchemaV4.self))
    /// ```
    ///
    /// A file records its tables, not everything the models said: delete rules are not compared,
    /// and renames are found from the new models' `originalName`. The file is only read. Files
    /// SwiftData or Core Data wrote throw ``SwiftDataError/unknownSchema``: replay them as
    /// migration fixtures instead.
    public init(store url: URL, to new: Schema) throws {
        self.init(try RecordedSchema.read(from: url), new, isPlanStage: false, stage: nil, oldIsRecorded: true)
    }

    /// The differences between two versions of a plan, read as a stage from one to the other.
    public init(from old: any VersionedSchema.Type, to new: any VersionedSchema.Type) {
        self.init(Schema(versionedSchema: old), Schema(versionedSchema: new), isPlanStage: true, stage: nil)
    }

    /// Each step of `plan`, from each listed version to the next, with the stage the plan has for it.
    ///
    /// ```swift
    /// for step in SchemaDiff.steps(of: ExpensesMigrationPlan.self) where !step.problems.isEmpty {
    ///     print(step)   // names the stage that must become custom, and why
    /// }
    /// ```
    public static func steps(of plan: any SchemaMigrationPlan.Type) -> [SchemaDiff] {
        let schemas = plan.schemas
        return zip(schemas, schemas.dropFirst()).map { old, new in
            let stage = plan.stages.first { $0.fromVersion.versionIdentifier == old.versionIdentifier && $0.toVersion.versionIdentifier == new.versionIdentifier }
            let kind = stage.map { stage -> String in
                if case .custom = stage { return "custom" }
                return "lightweight"
            }
            return SchemaDiff(Schema(versionedSchema: old), Schema(versionedSchema: new), isPlanStage: true, stage: kind)
        }
    }

    init(_ old: Schema, _ new: Schema, isPlanStage: Bool, stage: String?, oldIsRecorded: Bool = false) {
        fromVersion = old.version
        toVersion = new.version
        self.isPlanStage = isPlanStage
        self.stage = stage
        var differ = SchemaDiffer(old: old, new: new, isPlanStage: isPlanStage, oldIsRecorded: oldIsRecorded)
        changes = differ.changes()
    }

    public var description: String {
        let kind = isPlanStage ? " (a stage of a plan\(stage.map { ": \($0)" } ?? ", none declared: lightweight"))" : ""
        var lines = ["Schema \(fromVersion) → \(toVersion)\(kind): \(changes.isEmpty ? "no change" : verdictSummary)"]
        let width = min(changes.map { "\($0.entityName)\($0.propertyName.map { ".\($0)" } ?? "")".count }.max() ?? 0, 40)
        for change in changes {
            let name = "\(change.entityName)\(change.propertyName.map { ".\($0)" } ?? "")"
            lines.append("  \(name.padding(toLength: max(width, name.count), withPad: " ", startingAt: 0))  \(change.kind.rawValue): \(change.verdict) — \(change.detail)")
        }
        for problem in problems where problem.verdict == .customStage {
            lines.append("  Problem: the plan makes this step lightweight, and \(problem.entityName)\(problem.propertyName.map { ".\($0)" } ?? "") needs a custom stage")
        }
        return lines.joined(separator: "\n")
    }

    private var verdictSummary: String {
        switch verdict {
        case .lightweight: return "lightweight"
        case .dependsOnData: return "lightweight where the stored data allows"
        case .customStage: return "needs a custom stage"
        case .refused: return "refused"
        }
    }
}
