import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Every supported attribute type is written to a file store and read back through a new
/// container, as a new process would.
@Suite struct AttributeRoundTripTests {
    @Test func everyTypeRoundTripsThroughAFile() throws {
        let store = try TestStore(.file, [Sample.self])
        let original = Sample(
            addresses: [Address(street: "2 Side Rd", city: "Shelbyville", postcode: "99")],
            optionalInt: 0, optionalText: "", optionalDate: Date(timeIntervalSinceReferenceDate: -1.5),
            optionalUUID: UUID(), optionalMood: .sad, optionalAddress: Address(street: "x", city: "y"))
        original.scratch = "changed"
        let context = store.context()
        context.insert(original)
        try context.save()

        let reopened = try store.reopen([Sample.self])
        let loaded = try #require(try ModelContext(reopened).fetch(FetchDescriptor<Sample>()).first)
        #expect(loaded !== original)
        #expect(loaded.flag == original.flag)
        #expect(loaded.int == original.int)
        #expect(loaded.int8 == original.int8)
        #expect(loaded.int16 == original.int16)
        #expect(loaded.int32 == original.int32)
        #expect(loaded.int64 == original.int64)
        #expect(loaded.uint == original.uint)
        #expect(loaded.uint8 == original.uint8)
        #expect(loaded.uint16 == original.uint16)
        #expect(loaded.uint32 == original.uint32)
        #expect(loaded.uint64 == original.uint64)
        #expect(loaded.double == original.double)
        #expect(loaded.float == original.float)
        #expect(loaded.decimal == original.decimal)
        #expect(loaded.text == original.text)
        #expect(loaded.date == original.date)
        #expect(loaded.data == original.data)
        #expect(loaded.uuid == original.uuid)
        #expect(loaded.url == original.url)
        #expect(loaded.mood == original.mood)
        #expect(loaded.priority == original.priority)
        #expect(loaded.shape == original.shape)
        #expect(loaded.address == original.address)
        #expect(loaded.list == original.list)
        #expect(loaded.names == original.names)
        #expect(loaded.addresses == original.addresses)
        #expect(loaded.optionalInt == 0)
        #expect(loaded.optionalText == "")
        #expect(loaded.optionalDate == original.optionalDate)
        #expect(loaded.optionalUUID == original.optionalUUID)
        #expect(loaded.optionalMood == .sad)
        #expect(loaded.optionalAddress == original.optionalAddress)
        // @Transient properties are not stored: a loaded model has the default.
        #expect(loaded.scratch == "not stored")
    }

    @Test(arguments: StoreKind.allCases)
    func nilOptionalsStayNil(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Sample.self])
        let context = store.context()
        context.insert(Sample())
        try context.save()
        let loaded = try #require(try store.context().fetch(FetchDescriptor<Sample>()).first)
        #expect(loaded.optionalInt == nil)
        #expect(loaded.optionalText == nil)
        #expect(loaded.optionalDate == nil)
        #expect(loaded.optionalUUID == nil)
        #expect(loaded.optionalMood == nil)
        #expect(loaded.optionalAddress == nil)
    }

    @Test func schemaDescribesEntitiesAndFollowsRelationships() throws {
        let schema = Schema([Expense.self])
        #expect(Set(schema.entities.map(\.name)) == ["Expense", "Category"])
        let expense = try #require(schema.entitiesByName["Expense"])
        #expect(Set(expense.attributes.map(\.name)) == ["amount", "date", "note"])
        #expect(expense.relationshipsByName["category"]?.destination == "Category")
        #expect(expense.relationshipsByName["category"]?.isToOneRelationship == true)
        #expect(expense.attributesByName["note"]?.isOptional == true)
        let category = try #require(schema.entitiesByName["Category"])
        #expect(category.relationshipsByName["expenses"]?.inverseName == "category")
        #expect(category.relationshipsByName["expenses"]?.deleteRule == .nullify)
        let sample = Schema([Sample.self])
        #expect(sample.entitiesByName["Sample"]?.attributesByName["scratch"] == nil)

        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entitiesByName["Category"] != nil)
    }

    @Test func uniquenessAndIndexesAppearInTheSchema() {
        #expect(Schema([Tag.self]).entitiesByName["Tag"]?.uniquenessConstraints == [["name"]])
        #expect(Schema([Tag.self]).entitiesByName["Tag"]?.attributesByName["name"]?.isUnique == true)
        #expect(Schema([Person.self]).entitiesByName["Person"]?.uniquenessConstraints == [["firstName", "lastName"]])
    }
}
