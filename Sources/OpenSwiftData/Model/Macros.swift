import Observation

/// Makes a class a persistent model: its stored properties become persisted attributes and
/// relationships, and it conforms to ``PersistentModel`` and `Observable`.
///
/// ```swift
/// @Model
/// final class Expense {
///     var amount: Double
///     var date: Date
///     var note: String?
///     var category: Category?
///
///     init(amount: Double, date: Date = .now, note: String? = nil, category: Category? = nil) {
///         self.amount = amount
///         self.date = date
///         self.note = note
///         self.category = category
///     }
/// }
/// ```
///
/// A class that is not `final` can have `@Model` subclasses, which store their own properties
/// beside the inherited ones (see <doc:Inheritance>):
///
/// ```swift
/// @Model class BusinessExpense: Expense {
///     var client: String
///     init(amount: Double, client: String) {
///         self.client = client
///         super.init(amount: amount)
///     }
/// }
/// ```
@attached(member, conformances: PersistentModel, names: named(_$backingData), named(persistentBackingData), named(schemaMetadata), named(init(backingData:)), named(init), named(_$properties), named(_$inheritedSlots))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observation.Observable)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// Added by `@Model` to each persisted property; not for direct use.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(`_$`))
public macro _PersistedProperty(_ index: Int, defaulted: Bool = false) = #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Customises how an attribute is stored.
///
/// ```swift
/// @Attribute(.unique) var code: String
/// @Attribute(originalName: "title") var name: String
/// ```
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Customises a relationship: its delete rule, its inverse and its bounds.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Student.room)
/// var studentList: [Student] = []
/// ```
///
/// How the store keeps a relationship follows from its shape: a to-one is a column of its own
/// model's row holding the related row's key; a to-many whose inverse is a to-one is that
/// to-one's column (no storage of its own); a many-to-many, or a to-many without an inverse, is
/// a table of key pairs.
///
/// Two or more to-manys may name the same to-one as their inverse, as Apple's Backyard Birds
/// sample does:
///
/// ```swift
/// @Model class Backyard {
///     @Relationship(inverse: \Plant.backyard) var leadingPlants = [Plant]()
///     @Relationship(inverse: \Plant.backyard) var trailingPlants = [Plant]()
/// }
/// ```
///
/// The to-one's column alone cannot say which list holds a plant, so each of those to-manys
/// keeps its members in a table of pairs of its own, and the to-one keeps its column: what is
/// read back is what was saved, list by list. A member is in one of the lists at a time, and the
/// to-one names the model whose list holds it: appending a plant to `trailingPlants` takes it
/// out of `leadingPlants` (and out of another backyard's lists) and sets `plant.backyard`;
/// removing it from its list sets `plant.backyard` to `nil`; setting `plant.backyard` directly
/// puts the plant in the first of the lists in declaration order (`leadingPlants`). Deleting a
/// plant takes it out of its list; the delete rules apply to each list as declared. A store
/// written before this was supported kept such lists in the to-one's column only (so each list
/// read every plant of its backyard); opened now, it migrates automatically and each list starts
/// with what it read before, until the lists are assigned again. A list added later starts empty.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Keeps a stored property out of the store. It needs a default value.
///
/// ```swift
/// @Transient var isExpanded = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Declares that the combination of the listed properties is unique per model; inserting a model
/// whose values match an existing row updates that row instead (SwiftData's upsert).
///
/// ```swift
/// #Unique<Person>([\.email], [\.firstName, \.lastName])
/// ```
///
/// What the stored model keeps after such an insert (the same for `@Attribute(.unique)`):
/// - attributes take the inserted model's values;
/// - a to-one relationship the inserted model sets replaces the stored one (the replaced model's
///   reference back is cleared, as on any reassignment); one it leaves `nil` keeps the stored one;
/// - a to-many relationship keeps its stored members and gains the inserted model's.
///
/// Both ends of every relationship agree afterwards, and delete rules reach everything the merged
/// model holds. The inserted instance then stands for the stored model: its relationships read the
/// merged members. Apple documents only that the attributes are updated; the relationship rules
/// are ours, chosen so that an insert never loses or splits a relationship.
@freestanding(declaration, names: named(_$uniquenessConstraints))
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "UniqueMacro")

/// Declares indexes over one or more properties, to speed up fetches that filter or sort by them.
///
/// ```swift
/// #Index<Expense>([\.date], [\.category, \.date])
/// ```
@freestanding(declaration, names: named(_$indices))
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "IndexMacro")

/// Declares indexes of a kind over one or more properties (see ``Schema/Index`` for what `.rtree`
/// does here).
///
/// ```swift
/// #Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
/// ```
@freestanding(declaration, names: named(_$indices))
public macro Index<T: PersistentModel>(_ indices: Schema.Index<T>.Types<T>...) = #externalMacro(module: "OpenSwiftDataMacros", type: "TypedIndexMacro")

/// Declares indexes of a kind, grouped in arrays (the form some SwiftData code writes).
///
/// ```swift
/// #Index<Place>([.binary([\.name])], [.rtree([\.latitude, \.longitude])])
/// ```
@freestanding(declaration, names: named(_$indices))
public macro Index<T: PersistentModel>(_ indices: [Schema.Index<T>.Types<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "TypedIndexGroupsMacro")

/// Makes an actor a ``ModelActor``: it gets `modelContainer`, `modelExecutor` (a
/// ``DefaultSerialModelExecutor`` with a new context) and `init(modelContainer:)`.
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func add(_ name: String) throws {
///         modelContext.insert(Trip(name: name))
///         try modelContext.save()
///     }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")
