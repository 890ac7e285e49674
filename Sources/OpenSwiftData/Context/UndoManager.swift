import Foundation

#if !canImport(Darwin)
/// Records changes so they can be undone and redone: Foundation's `UndoManager`, which Linux
/// Foundation lacks. Set one on a context and its inserts, deletes and property changes become
/// undoable:
///
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// trip.name = "Kyoto"
/// undoManager.undo()        // trip.name is back to what it was
/// undoManager.redo()        // "Kyoto" again
/// ```
///
/// Actions registered outside an explicit group (`beginUndoGrouping`/`endUndoGrouping`) collect in
/// an implicit group while `groupsByEvent` is true. With no run loop events to end it, that group
/// ends when `undo()` or `redo()` is called, when the context saves or calls
/// `processPendingChanges()`, or when the main queue next runs (if it was opened on the main thread).
/// Targets are held weakly, as Foundation does: an action whose target is gone is skipped.
open class UndoManager {
    private struct Action {
        weak var target: AnyObject?
        let handler: (AnyObject) -> Void
    }

    private final class Group {
        var actions: [Action] = []
        var name = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var openGroups: [Group] = []
    private var implicitGroup: Group?
    private var collecting: Group?
    private var disabled = 0

    /// Creates an undo manager with no actions.
    public init() {}

    /// Whether actions registered outside an explicit group are grouped automatically. Default `true`.
    open var groupsByEvent = true

    /// The most undo groups kept; 0 (the default) keeps all.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// Whether an undo is running (actions registered now become redo actions).
    open private(set) var isUndoing = false

    /// Whether a redo is running.
    open private(set) var isRedoing = false

    /// Whether registrations are recorded.
    open var isUndoRegistrationEnabled: Bool { disabled == 0 }

    /// Stops recording registrations, until a matching `enableUndoRegistration()`.
    open func disableUndoRegistration() {
        disabled += 1
    }

    /// Resumes recording after `disableUndoRegistration()`.
    open func enableUndoRegistration() {
        if disabled > 0 { disabled -= 1 }
    }

    /// How many explicit groups are open.
    open var groupingLevel: Int { openGroups.count }

    /// Opens a group: everything registered until the matching `endUndoGrouping()` undoes together.
    open func beginUndoGrouping() {
        if openGroups.isEmpty { closeImplicitGroup() }
        openGroups.append(Group())
    }

    /// Closes the innermost open group.
    open func endUndoGrouping() {
        guard let group = openGroups.popLast() else { return }
        if let outer = openGroups.last {
            outer.actions.append(contentsOf: group.actions)
            if outer.name.isEmpty { outer.name = group.name }
        } else {
            push(group)
        }
    }

    /// Whether there is something to undo.
    open var canUndo: Bool {
        !undoStack.isEmpty || !(implicitGroup?.actions.isEmpty ?? true)
    }

    /// Whether there is something to redo.
    open var canRedo: Bool { !redoStack.isEmpty }

    /// Records how to undo a change: `handler` is called with `target` when the change is undone.
    ///
    /// ```swift
    /// undoManager.registerUndo(withTarget: counter) { $0.value -= 1 }
    /// ```
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        let action = Action(target: target) { object in
            if let typed = object as? TargetType { handler(typed) }
        }
        if let collecting {
            collecting.actions.append(action)
            return
        }
        redoStack.removeAll()
        if let open = openGroups.last {
            open.actions.append(action)
        } else if groupsByEvent {
            openImplicitGroup().actions.append(action)
        } else {
            let group = Group()
            group.actions.append(action)
            push(group)
        }
    }

    /// Names the action of the group being recorded (or the last one), for "Undo <name>".
    open func setActionName(_ actionName: String) {
        (collecting ?? openGroups.last ?? implicitGroup ?? undoStack.last)?.name = actionName
    }

    /// The name of the action `undo()` would undo.
    open var undoActionName: String {
        (implicitGroup.flatMap { $0.actions.isEmpty ? nil : $0 } ?? undoStack.last)?.name ?? ""
    }

    /// The name of the action `redo()` would redo.
    open var redoActionName: String { redoStack.last?.name ?? "" }

    /// Undoes the last group of changes; what it changes becomes redoable.
    open func undo() {
        while !openGroups.isEmpty { endUndoGrouping() }
        closeImplicitGroup()
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        let redo = replay(group)
        isUndoing = false
        if !redo.actions.isEmpty { redoStack.append(redo) }
    }

    /// Undoes the last group, like `undo()`.
    open func undoNestedGroup() {
        undo()
    }

    /// Redoes the last undone group of changes.
    open func redo() {
        closeImplicitGroup()
        guard let group = redoStack.popLast() else { return }
        isRedoing = true
        let undo = replay(group)
        isRedoing = false
        if !undo.actions.isEmpty {
            undoStack.append(undo)
            trim()
        }
    }

    /// Forgets every undo and redo action.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        implicitGroup = nil
    }

    /// Forgets the actions registered with `target`.
    open func removeAllActions(withTarget target: AnyObject) {
        for group in undoStack + redoStack + openGroups + [implicitGroup].compactMap({ $0 }) {
            group.actions.removeAll { $0.target === target }
        }
        undoStack.removeAll { $0.actions.isEmpty }
        redoStack.removeAll { $0.actions.isEmpty }
    }

    /// Ends the implicit group, so later registrations start a new undo step.
    func closeImplicitGroup() {
        guard let group = implicitGroup else { return }
        implicitGroup = nil
        if !group.actions.isEmpty { push(group) }
    }

    private func openImplicitGroup() -> Group {
        if let implicitGroup { return implicitGroup }
        let group = Group()
        implicitGroup = group
        if Thread.isMainThread {
            // The nearest thing to the end of a run-loop event: the main queue's next turn.
            let pending = MainThreadReference(manager: self, group: group)
            DispatchQueue.main.async {
                guard let manager = pending.manager, let group = pending.group, manager.implicitGroup === group else { return }
                manager.closeImplicitGroup()
            }
        }
        return group
    }

    /// Runs a group's actions last to first, collecting what they register into the opposite group.
    private func replay(_ group: Group) -> Group {
        let opposite = Group()
        opposite.name = group.name
        collecting = opposite
        for action in group.actions.reversed() {
            if let target = action.target { action.handler(target) }
        }
        collecting = nil
        // Actions registered while replaying ran in reverse order; keep them in registration order.
        return opposite
    }

    /// Carries the manager and its group to the main queue. `@unchecked Sendable`: both are created
    /// on the main thread and the block reading them runs on the main queue, i.e. the main thread.
    private struct MainThreadReference: @unchecked Sendable {
        weak var manager: UndoManager?
        weak var group: Group?
    }

    private func push(_ group: Group) {
        undoStack.append(group)
        trim()
    }

    private func trim() {
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo {
            undoStack.removeFirst(undoStack.count - levelsOfUndo)
        }
    }
}
#else
extension UndoManager {
    /// Run-loop events end Foundation's implicit groups on Apple platforms; nothing to do here.
    func closeImplicitGroup() {}
}
#endif
