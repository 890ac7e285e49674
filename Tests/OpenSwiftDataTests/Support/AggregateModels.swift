import Foundation
@testable import OpenSwiftData

// Models for the aggregate suite: one attribute of each numeric kind a store adds up
// differently (64-bit integers, small integers, decimals as text, doubles with NaN, floats,
// unsigned by bit pattern), optional ones with nils, and a to-one relationship to sum through.

@Model
final class Reading {
    var count: Int
    var small: Int8
    var price: Decimal
    var weight: Double?
    var ratio: Float
    var bonus: Int?
    var unsigned: UInt64
    var sensor: Sensor?

    init(count: Int, small: Int8 = 0, price: Decimal = 0, weight: Double? = nil, ratio: Float = 0, bonus: Int? = nil, unsigned: UInt64 = 0, sensor: Sensor? = nil) {
        self.count = count
        self.small = small
        self.price = price
        self.weight = weight
        self.ratio = ratio
        self.bonus = bonus
        self.unsigned = unsigned
        self.sensor = sensor
    }
}

@Model
final class Sensor {
    var name: String
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
