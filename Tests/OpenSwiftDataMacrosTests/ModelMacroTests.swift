import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
@testable import OpenSwiftDataMacros

/// Expansions of `@Model` and its helper macros, and the errors they report.
@Suite struct ModelMacroTests {
    static let specs: [String: MacroSpec] = [
        "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
        "Attribute": MacroSpec(type: MarkerMacro.self),
        "Relationship": MacroSpec(type: MarkerMacro.self),
        "Transient": MacroSpec(type: MarkerMacro.self),
    ]

    /// As the compiler expands `@Model` on a subclass of a model: the conformances are inherited,
    /// so none is asked for.
    static let subclassSpecs: [String: MacroSpec] = specs.merging(["Model": MacroSpec(type: ModelMacro.self, conformances: [])]) { $1 }

    static func record(_ failure: TestFailureSpec) {
        Issue.record(
            Comment(rawValue: failure.message),
            sourceLocation: SourceLocation(
                fileID: failure.location.fileID, filePath: failure.location.filePath,
                line: failure.location.line, column: failure.location.column))
    }

    @Test func modelExpansion() {
        assertMacroExpansion(
            """
            @Model
            final class Expense {
                var amount: Double
                var note: String? = nil
                @Attribute(.unique) var code: String
                @Relationship(deleteRule: .cascade, inverse: \\Item.expense) var items: [Item] = []
                @Transient var cache: Int = 0
                var total: Double { amount * 2 }
                static var count = 0
                init(amount: Double, code: String) {
                    self.amount = amount
                    self.code = code
                }
            }
            """,
            expandedSource: """
            final class Expense {
                @OpenSwiftData._PersistedProperty(0)
                var amount: Double
                @OpenSwiftData._PersistedProperty(1)
                var note: String? = nil
                @OpenSwiftData._PersistedProperty(2) var code: String
                @OpenSwiftData._PersistedProperty(3) var items: [Item] = []
                var cache: Int = 0
                var total: Double { amount * 2 }
                static var count = 0
                init(amount: Double, code: String) {
                    self.amount = amount
                    self.code = code
                }

                private var _$backingData: OpenSwiftData.BackingData = OpenSwiftData.BackingData._make(for: Expense.self)

                public var persistentBackingData: OpenSwiftData.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "amount", keyPath: \\Expense.amount, metadata: nil),
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "note", keyPath: \\Expense.note, defaultValue: nil, metadata: nil),
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "code", keyPath: \\Expense.code, metadata: OpenSwiftData.Schema.Attribute(.unique)),
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "items", keyPath: \\Expense.items, defaultValue: [], metadata: OpenSwiftData.Schema.Relationship(deleteRule: .cascade, inverse: \\Item.expense))
                    ]
                }

                public required init(backingData: OpenSwiftData.BackingData) {
                    self._$amount = OpenSwiftData._PersistedStorage()
                    self._$note = OpenSwiftData._PersistedStorage()
                    self._$code = OpenSwiftData._PersistedStorage()
                    self._$items = OpenSwiftData._PersistedStorage()
                    self._$backingData = backingData
                }
            }

            extension Expense: OpenSwiftData.PersistentModel, Observation.Observable {
            }
            """,
            macroSpecs: Self.specs,
            failureHandler: Self.record)
    }

    @Test func persistedPropertyExpansion() {
        assertMacroExpansion(
            """
            @_PersistedProperty(2)
            var amount: Double
            """,
            expandedSource: """
            var amount: Double {
                @storageRestrictions(accesses: _$backingData, initializes: _$amount)
                init(initialValue) {
                    _$backingData._initialize(2, to: initialValue)
                    _$amount = OpenSwiftData._PersistedStorage()
                }
                get {
                    _$backingData._access(self, keyPath: \\.amount)
                    return _$backingData._value(2, of: self)
                }
                set {
                    _$backingData._withMutation(of: self, keyPath: \\.amount) {
                        _$backingData._setValue(2, to: newValue, of: self)
                    }
                }
            }

            private var _$amount: OpenSwiftData._PersistedStorage
            """,
            macroSpecs: ["_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self)],
            failureHandler: Self.record)
    }

    @Test func classWithoutInitialiserGetsOne() {
        assertMacroExpansion(
            """
            @Model
            final class Flag {
                var on: Bool = false
            }
            """,
            expandedSource: """
            final class Flag {
                @OpenSwiftData._PersistedProperty(0)
                var on: Bool = false

                private var _$backingData: OpenSwiftData.BackingData = OpenSwiftData.BackingData._make(for: Flag.self)

                public var persistentBackingData: OpenSwiftData.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "on", keyPath: \\Flag.on, defaultValue: false, metadata: nil)
                    ]
                }

                public required init(backingData: OpenSwiftData.BackingData) {
                    self._$on = OpenSwiftData._PersistedStorage()
                    self._$backingData = backingData
                }

                public init() {
                }
            }

            extension Flag: OpenSwiftData.PersistentModel, Observation.Observable {
            }
            """,
            macroSpecs: Self.specs,
            failureHandler: Self.record)
    }

    /// A class that may have subclasses lists its properties through a static generic function, so
    /// that a subclass's metadata holds key paths rooted at the subclass.
    @Test func nonFinalClassExpansion() {
        assertMacroExpansion(
            """
            @Model
            class Trip {
                var name: String
                init(name: String) {
                    self.name = name
                }
            }
            """,
            expandedSource: """
            class Trip {
                @OpenSwiftData._PersistedProperty(0)
                var name: String
                init(name: String) {
                    self.name = name
                }

                private var _$backingData: OpenSwiftData.BackingData = OpenSwiftData.BackingData._make(for: Trip.self)

                public var persistentBackingData: OpenSwiftData.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                public class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    _$properties(Trip.self)
                }

                public static func _$properties<Root: Trip>(_: Root.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata._persisted(name: "name", keyPath: \\Root.name, metadata: nil)
                    ]
                }

                public required init(backingData: OpenSwiftData.BackingData) {
                    self._$name = OpenSwiftData._PersistedStorage()
                    self._$backingData = backingData
                }
            }

            extension Trip: OpenSwiftData.PersistentModel, Observation.Observable {
            }
            """,
            macroSpecs: Self.specs,
            failureHandler: Self.record)
    }

    /// A subclass (it inherits `PersistentModel`, so the conformance is not asked for) overrides the
    /// backing data and metadata and keeps its initial values until the backing data is shared.
    @Test func subclassExpansion() {
        assertMacroExpansion(
            """
            @Model
            class BusinessTrip: Trip {
                var purpose: String
                var budget: Double = 0
                init(name: String, purpose: String) {
                    self.purpose = purpose
                    super.init(name: name)
                }
            }
            """,
            expandedSource: """
            class BusinessTrip: Trip {
                @OpenSwiftData._PersistedProperty(0)
                var purpose: String
                @OpenSwiftData._PersistedProperty(1)
                var budget: Double = 0
                init(name: String, purpose: String) {
                    self.purpose = purpose
                    super.init(name: name)
                }

                private static let _$inheritedSlots = Trip.schemaMetadata.count

                private var _$backingData = OpenSwiftData._InheritedBackingData(inheritedSlots: BusinessTrip._$inheritedSlots)

                public override var persistentBackingData: OpenSwiftData.BackingData {
                    get {
                        _$backingData._adopt(super.persistentBackingData, by: self)
                    }
                    set {
                        super.persistentBackingData = newValue
                    }
                }

                public override class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    _$properties(BusinessTrip.self)
                }

                public static func _$properties<Root: BusinessTrip>(_: Root.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                    super._$properties(Root.self) + [
                    OpenSwiftData.Schema.PropertyMetadata._persisted(name: "purpose", keyPath: \\Root.purpose, metadata: nil),
                    OpenSwiftData.Schema.PropertyMetadata._persisted(name: "budget", keyPath: \\Root.budget, defaultValue: 0, metadata: nil)
                    ]
                }

                public required init(backingData: OpenSwiftData.BackingData) {
                    self._$purpose = OpenSwiftData._PersistedStorage()
                    self._$budget = OpenSwiftData._PersistedStorage()
                    super.init(backingData: backingData)
                }
            }
            """,
            macroSpecs: Self.subclassSpecs,
            failureHandler: Self.record)
    }

    /// A subclass without a designated initialiser inherits its superclass's, `init(backingData:)`
    /// included: its peers get initial values, and no initialiser is generated.
    @Test func subclassWithoutInitialiserInheritsThem() {
        assertMacroExpansion(
            """
            @Model
            class DayTrip: Trip {
                var hours: Int = 8
            }
            """,
            expandedSource: """
            class DayTrip: Trip {
                @OpenSwiftData._PersistedProperty(0, defaulted: true)
                var hours: Int = 8

                private static let _$inheritedSlots = Trip.schemaMetadata.count

                private var _$backingData = OpenSwiftData._InheritedBackingData(inheritedSlots: DayTrip._$inheritedSlots)

                public override var persistentBackingData: OpenSwiftData.BackingData {
                    get {
                        _$backingData._adopt(super.persistentBackingData, by: self)
                    }
                    set {
                        super.persistentBackingData = newValue
                    }
                }

                public override class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    _$properties(DayTrip.self)
                }

                public static func _$properties<Root: DayTrip>(_: Root.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                    super._$properties(Root.self) + [
                    OpenSwiftData.Schema.PropertyMetadata._persisted(name: "hours", keyPath: \\Root.hours, defaultValue: 8, metadata: nil)
                    ]
                }
            }
            """,
            macroSpecs: Self.subclassSpecs,
            failureHandler: Self.record)
    }

    @Test func diagnostics() {
        assertMacroExpansion(
            """
            @Model
            struct Point {
            }
            """,
            expandedSource: """
            struct Point {
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Model can only be applied to a class", line: 1, column: 1)],
            macroSpecs: Self.specs,
            failureHandler: Self.record)

        let diagnostics = expansionDiagnostics(
            """
            @Model
            final class Bad {
                let id: Int
                @Transient var cache: [Int]
                var a, b: Int
                var c: Int { didSet { } }
                init() { id = 0; cache = []; a = 0; b = 0; c = 0 }
            }
            """)
        #expect(diagnostics.contains { $0.contains("must be declared with 'var'") })
        #expect(diagnostics.contains { $0.contains("@Transient property 'cache' needs a default value") })
        #expect(diagnostics.contains { $0.contains("declare each persisted property on its own line") })
        #expect(diagnostics.contains { $0.contains("willSet/didSet") })

        // Conforming by hand looks like a subclass to the macro (no conformance is asked for).
        var explicit: [String] = []
        assertMacroExpansion(
            """
            @Model
            class Manual: PersistentModel {
                var name: String = ""
            }
            """,
            expandedSource: "", macroSpecs: Self.subclassSpecs,
            failureHandler: { explicit.append($0.message) })
        #expect(explicit.contains { $0.contains("@Model adds the PersistentModel conformance itself") })

        // A subclass's #Unique would never be read (its superclass's conformance answers).
        var constrained: [String] = []
        assertMacroExpansion(
            """
            @Model
            class BusinessTrip: Trip {
                #Unique<BusinessTrip>([\\.code])
                var code: String = ""
            }
            """,
            expandedSource: "", macroSpecs: Self.subclassSpecs,
            failureHandler: { constrained.append($0.message) })
        #expect(constrained.contains { $0.contains("#Unique cannot be declared on a subclass of a model") })
    }

    @Test func uniqueAndIndex() {
        assertMacroExpansion(
            """
            #Unique<Person>([\\.name], [\\.first, \\.last])
            """,
            expandedSource: """
            public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                let groups: [[PartialKeyPath<Person>]] = [[\\.name], [\\.first, \\.last]]
                return groups
            }
            """,
            macroSpecs: ["Unique": MacroSpec(type: UniqueMacro.self)],
            failureHandler: Self.record)
        assertMacroExpansion(
            """
            #Index<Person>([\\.name])
            """,
            expandedSource: """
            public static var _$indices: [[AnyKeyPath]] {
                let groups: [[PartialKeyPath<Person>]] = [[\\.name]]
                return groups
            }
            """,
            macroSpecs: ["Index": MacroSpec(type: IndexMacro.self)],
            failureHandler: Self.record)
        // SwiftData's kinds of index, variadic and in arrays: the same list of key-path groups.
        assertMacroExpansion(
            """
            #Index<Place>(.binary([\\.name]), .rtree([\\.x, \\.y]))
            """,
            expandedSource: """
            public static var _$indices: [[AnyKeyPath]] {
                let indices: [OpenSwiftData.Schema.Index<Place>.Types<Place>] = [.binary([\\.name]), .rtree([\\.x, \\.y])]
                return indices.map {
                    $0.keyPaths
                }
            }
            """,
            macroSpecs: ["Index": MacroSpec(type: TypedIndexMacro.self)],
            failureHandler: Self.record)
        assertMacroExpansion(
            """
            #Index<Place>([.binary([\\.name])], [.rtree([\\.x, \\.y])])
            """,
            expandedSource: """
            public static var _$indices: [[AnyKeyPath]] {
                let groups: [[OpenSwiftData.Schema.Index<Place>.Types<Place>]] = [[.binary([\\.name])], [.rtree([\\.x, \\.y])]]
                return groups.joined().map {
                    $0.keyPaths
                }
            }
            """,
            macroSpecs: ["Index": MacroSpec(type: TypedIndexGroupsMacro.self)],
            failureHandler: Self.record)
    }

    /// The messages of the diagnostics `@Model` reports for a source.
    private func expansionDiagnostics(_ source: String) -> [String] {
        var messages: [String] = []
        assertMacroExpansion(
            source, expandedSource: "", macroSpecs: Self.specs,
            failureHandler: { failure in messages.append(failure.message) })
        return messages
    }
}

/// `@ModelActor`'s expansion.
@Suite struct ModelActorMacroTests {
    @Test func modelActorExpansion() {
        assertMacroExpansion(
            """
            @ModelActor
            actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
            actor Importer {
                func run() {}

                public nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor

                public nonisolated let modelContainer: OpenSwiftData.ModelContainer

                public init(modelContainer: OpenSwiftData.ModelContainer) {
                    let modelContext = OpenSwiftData.ModelContext(modelContainer)
                    self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: OpenSwiftData.ModelActor {
            }
            """,
            macroSpecs: ["ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"])],
            failureHandler: ModelMacroTests.record)
    }

    @Test func onlyActors() {
        assertMacroExpansion(
            """
            @ModelActor
            class Importer {}
            """,
            expandedSource: """
            class Importer {}
            """,
            diagnostics: [DiagnosticSpec(message: "@ModelActor can only be applied to an actor", line: 1, column: 1)],
            macroSpecs: ["ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"])],
            failureHandler: ModelMacroTests.record)
    }
}
