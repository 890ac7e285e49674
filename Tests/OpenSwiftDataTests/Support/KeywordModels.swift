import Foundation
import OpenSwiftData

/// Models and properties named like SQL keywords, in every role: tables, columns, foreign keys,
/// join tables, each delete rule. The entity name is the class name (`Order`, `Group`…).
enum Keywords {
    static let types: [any PersistentModel.Type] = [Order.self, Group.self, Index.self, Table.self, Check.self]

    @Model final class Order {
        #Index<Order>([\.from])
        @Attribute(.unique) var select: String
        var from: Int
        var group: Group?
        @Relationship(deleteRule: .cascade, inverse: \Index.order) var index: [Index] = []
        var check: [Check] = []
        init(select: String, from: Int) {
            self.select = select
            self.from = from
        }
    }

    @Model final class Group {
        var table: String
        @Relationship(deleteRule: .nullify, inverse: \Order.group) var order: [Order] = []
        @Relationship(deleteRule: .deny, inverse: \Check.group) var check: [Check] = []
        @Relationship(deleteRule: .noAction, inverse: \Table.group) var values: [Table] = []
        init(table: String) { self.table = table }
    }

    @Model final class Index {
        var limit: Int
        var order: Order?
        init(limit: Int) { self.limit = limit }
    }

    @Model final class Table {
        var primary: String
        var group: Group?
        init(primary: String) { self.primary = primary }
    }

    @Model final class Check {
        var key: String
        var group: Group?
        @Relationship(inverse: \Order.check) var order: [Order] = []
        init(key: String) { self.key = key }
    }
}

/// Two keyword-named models before and after a lightweight migration that renames a column, adds
/// one, and moves a to-one to a to-many (a join table named after keywords).
enum KeywordsBefore {
    static let types: [any PersistentModel.Type] = [Order.self, Group.self]

    @Model final class Order {
        #Index<Order>([\.from])
        var select: String
        var from: Int
        var group: Group?
        init(select: String, from: Int) {
            self.select = select
            self.from = from
        }
    }

    @Model final class Group {
        var table: String
        @Relationship(inverse: \Order.group) var order: [Order] = []
        init(table: String) { self.table = table }
    }
}

enum KeywordsAfter {
    static let types: [any PersistentModel.Type] = [Order.self, Group.self]

    @Model final class Order {
        #Index<Order>([\.offset])
        var select: String
        @Attribute(originalName: "from") var offset: Int
        var having: String = "none"
        @Relationship(originalName: "group") var groups: [Group] = []
        init(select: String, offset: Int) {
            self.select = select
            self.offset = offset
        }
    }

    @Model final class Group {
        var table: String
        @Relationship(inverse: \Order.groups) var order: [Order] = []
        init(table: String) { self.table = table }
    }
}
