import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A classroom. Deleting it deletes its students (`.cascade`).
@Model
final class Classroom {
    var name: String
    var teacher: String
    @Relationship(deleteRule: .cascade, inverse: \Student.room)
    var studentList: [Student] = []

    init(name: String, teacher: String) {
        self.name = name
        self.teacher = teacher
    }
}

/// A student. Deleting a student only takes it out of its classroom (`.nullify`).
@Model
final class Student {
    var name: String
    var gender: String
    var score: Double
    @Relationship(deleteRule: .nullify)
    var room: Classroom?

    init(name: String, gender: String, score: Double) {
        self.name = name
        self.gender = gender
        self.score = score
    }
}

extension Student {
    /// `Mario Maurer (M) 67`
    var line: String { "\(name) (\(gender)) \(String(format: "%g", score))" }
}
