import Foundation
@testable import OpenSwiftData

// Models for the aggregate suite: one attribute of each numeric kind a store adds up
// differently (64-bit integers, small integers, decimals as text, doubles with NaN, floats,
// unsigned by bit pattern), optional ones with nils, and a to-one relationship to sum through;
// for least and greatest values and groups, strings (canonically equal ones among them), dates
// and an enum whose raw values do not order as its cases do.

/// Ordered by case, not by raw value (which orders `mid < high < low`).
enum Grade: String, Codable, Comparable, CaseIterable {
    case low = "z", mid = "a", high = "m"

    static func < (a: Grade, b: Grade) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}

@Model
final class Reading {
    var count: Int
    var small: Int8
    var price: Decimal
    var weight: Double?
    var ratio: Float
    var bonus: Int?
    var unsigned: UInt64
    var label: String = ""
    var taken: Date = Date(timeIntervalSinceReferenceDate: 0)
    var grade: Grade = Grade.mid
    var sensor: Sensor?

    init(count: Int, small: Int8 = 0, price: Decimal = 0, weight: Double? = nil, ratio: Float = 0, bonus: Int? = nil, unsigned: UInt64 = 0,
         label: String = "", taken: Date = Date(timeIntervalSinceReferenceDate: 0), grade: Grade = .mid, sensor: Sensor? = nil) {
        self.count = count
        self.small = small
        self.price = price
        self.weight = weight
        self.ratio = ratio
        self.bonus = bonus
        self.unsigned = unsigned
        self.label = label
        self.taken = taken
        self.grade = grade
        self.sensor = sensor
    }
}

@Model
final class Sensor {
    @Attribute(.unique) var name: String
    var offset: Int
    @Relationship(deleteRule: .nullify, inverse: \Reading.sensor)
    var readings: [Reading] = []

    init(name: String, offset: Int) {
        self.name = name
        self.offset = offset
    }
}

enum AggregateModels {
    static let types: [any PersistentModel.Type] = [Reading.self, Sensor.self]
}
