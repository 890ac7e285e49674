import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// `@Attribute(.transformable(by:))`: values are stored as the `Data` their transformer makes and
/// read back through it, on every store; a transformer that cannot do its part is a clear error.
@Suite struct TransformableAttributeTests {
    @Test(arguments: StoreKind.allCases)
    func valuesRoundTripThroughTheirTransformer(_ kind: StoreKind) throws {
        Swatch.registerTransformers()
        let store = try TestStore(kind, [Swatch.self])
        let context = store.context()
        context.insert(Swatch(name: "sea", color: RGB(0, 105, 148), accent: RGB(255, 255, 255)))
        context.insert(Swatch(name: "night", color: RGB(10, 10, 40), accent: nil))
        try context.save()

        let fresh = ModelContext(try store.reopen([Swatch.self]))
        let swatches = try fresh.fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        try #require(swatches.count == 2)
        #expect(swatches[0].name == "night" && swatches[0].color == RGB(10, 10, 40) && swatches[0].accent == nil)
        #expect(swatches[1].color == RGB(0, 105, 148) && swatches[1].accent == RGB(255, 255, 255))

        swatches[0].accent = RGB(1, 2, 3)
        try fresh.save()
        let again = ModelContext(try store.reopen([Swatch.self]))
        #expect(try again.fetch(FetchDescriptor<Swatch>(predicate: #Predicate { $0.name == "night" })).first?.accent == RGB(1, 2, 3))
        // The transformers ran: each value was encoded to 3 bytes and decoded from them.
        #expect(RGBTransformer.calls.withLock { $0 } > 0)
    }

    @Test func aTransformerThatMakesNoDataIsAnErrorAndNothingIsSaved() throws {
        let store = try TestStore(.memory, [PaintChip.self])
        let context = store.context()
        context.insert(PaintChip(label: "bad", color: RGB(1, 1, 1)))
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".contains("NotDataTransformer") && "\(error)".contains("Data")
        }
        let fresh = ModelContext(store.container)
        #expect(try fresh.fetchCount(FetchDescriptor<PaintChip>()) == 0)
    }

    @Test func anUnregisteredTransformerNameIsAnErrorWhenTheContainerOpens() {
        #expect {
            _ = try ModelContainer(for: Sticker.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            "\(error)".contains("NoSuchTransformer") && "\(error)".contains("setValueTransformer")
        }
    }
}

/// A colour that is not `Codable`: it can only be stored through a transformer.
final class RGB: Equatable, CustomStringConvertible, @unchecked Sendable {
    let red: UInt8, green: UInt8, blue: UInt8
    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }
    static func == (lhs: RGB, rhs: RGB) -> Bool { (lhs.red, lhs.green, lhs.blue) == (rhs.red, rhs.green, rhs.blue) }
    var description: String { "RGB(\(red), \(green), \(blue))" }
}

final class RGBTransformer: ValueTransformer {
    static let calls = Locked(0)
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        Self.calls.withLock { $0 += 1 }
        return (value as? RGB).map { Data([$0.red, $0.green, $0.blue]) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.calls.withLock { $0 += 1 }
        guard let data = value as? Data, data.count == 3 else { return nil }
        return RGB(data[0], data[1], data[2])
    }
}

final class NotDataTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? { "not data" }
}

@Model final class Swatch {
    var name: String
    @Attribute(.transformable(by: RGBTransformer.self)) var color: RGB
    @Attribute(.transformable(by: "SwatchAccent")) var accent: RGB?

    init(name: String, color: RGB, accent: RGB?) {
        self.name = name
        self.color = color
        self.accent = accent
    }

    /// The name-registered transformer `accent` uses, registered before any schema lists Swatch.
    static func registerTransformers() {
        ValueTransformer.setValueTransformer(RGBTransformer(), forName: NSValueTransformerName("SwatchAccent"))
    }
}

@Model final class PaintChip {
    var label: String
    @Attribute(.transformable(by: NotDataTransformer.self)) var color: RGB
    init(label: String, color: RGB) {
        self.label = label
        self.color = color
    }
}

@Model final class Sticker {
    @Attribute(.transformable(by: "NoSuchTransformer")) var color: RGB?
    init(color: RGB?) { self.color = color }
}
