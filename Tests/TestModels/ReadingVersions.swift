import Foundation
import OpenSwiftData

/// Two versions of one entity, for killing a process in the middle of migrating from the first to
/// the second: the second renames a value, adds a defaulted column and a unique constraint, and
/// turns an integer into a floating-point number (which copies every row).
public enum ReadingsV1 {
    public static let version = Schema.Version(1, 0, 0)

    @Model
    public final class Reading {
        public var sensor: Int
        public var value: Double
        public init(sensor: Int, value: Double) {
            self.sensor = sensor
            self.value = value
        }
    }
}

public enum ReadingsV2 {
    public static let version = Schema.Version(2, 0, 0)

    @Model
    public final class Reading {
        @Attribute(.unique) public var sensor: Double
        @Attribute(originalName: "value") public var measurement: Double
        public var unit: String = "°C"
        public init(sensor: Double, measurement: Double) {
            self.sensor = sensor
            self.measurement = measurement
        }
    }
}
