// A stand-in for SwiftUI on Linux: the declarations Swidux's SwiftUI code, its README and
// DocC examples and the scaffolder's templates use, with the isolation of Apple's iOS 18 /
// macOS 15 SDK (`View`, `App`, `Scene`, `ViewModifier` and `DynamicProperty` are
// `@MainActor @preconcurrency`; modifiers are `nonisolated`; `Binding(get:set:)` takes
// `@isolated(any) @Sendable` closures). It type-checks; it renders nothing, and its bodies
// never run (scripts/check-snippets.sh builds modules against it and links nothing).
// It does not replace a build with Apple's SDK: it catches signature and isolation mistakes.
@_exported import Foundation
@_exported import Observation

// MARK: Views

@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// A view that has no body of its own (SwiftUI's primitive views).
@MainActor @preconcurrency
public protocol _ShimPrimitiveView: View where Body == Never {}

extension _ShimPrimitiveView {
    public var body: Never { fatalError("SwiftUIShim renders nothing") }
}

@resultBuilder
public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        TupleView((repeat each content))
    }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<T: View, F: View>(first: T) -> _ConditionalContent<T, F> { _ConditionalContent() }
    public static func buildEither<T: View, F: View>(second: F) -> _ConditionalContent<T, F> { _ConditionalContent() }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

public struct EmptyView: _ShimPrimitiveView { public nonisolated init() {} }
public struct TupleView<T>: _ShimPrimitiveView { public nonisolated init(_ value: T) {} }
public struct _ConditionalContent<TrueContent, FalseContent>: _ShimPrimitiveView { nonisolated init() {} }
extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}
public struct AnyView: _ShimPrimitiveView { public nonisolated init<V: View>(_ view: V) {} }

// MARK: Modifiers

@MainActor @preconcurrency
public protocol ViewModifier {
    associatedtype Body: View
    typealias Content = _ViewModifier_Content<Self>
    @ViewBuilder @MainActor @preconcurrency func body(content: Content) -> Body
}

public struct _ViewModifier_Content<Modifier: ViewModifier>: _ShimPrimitiveView {}
public struct ModifiedContent<Content, Modifier>: _ShimPrimitiveView {
    public nonisolated init(content: Content, modifier: Modifier) {}
}

extension View {
    public nonisolated func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> {
        ModifiedContent(content: self, modifier: modifier)
    }
}

// MARK: Dynamic properties

@MainActor @preconcurrency
public protocol DynamicProperty {
    mutating func update()
}
extension DynamicProperty {
    public mutating func update() {}
}

@propertyWrapper
public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) {}
    public init(initialValue value: Value) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError() }
}

@propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    /// As in the iOS 18 SDK: the closures may be isolated to an actor (or not), and
    /// SwiftUI may call them from any thread.
    @preconcurrency
    public init(
        @_inheritActorContext get: @escaping @isolated(any) @Sendable () -> Value,
        @_inheritActorContext set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {}
    public static func constant(_ value: Value) -> Binding<Value> { fatalError() }
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { fatalError() }
}

extension Binding: @unchecked Sendable where Value: Sendable {}

public struct EnvironmentValues {
    public init() {}
}

@propertyWrapper
public struct Environment<Value>: DynamicProperty {
    public nonisolated init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError() }
}

public enum ScenePhase: Comparable, Hashable, Sendable {
    case background, inactive, active
}

extension EnvironmentValues {
    public var scenePhase: ScenePhase {
        get { .active }
        set {}
    }
}

// MARK: Animation and transactions

public struct Animation: Equatable, Sendable {
    public static let `default` = Animation()
    public static var snappy: Animation { Animation() }
    public static var smooth: Animation { Animation() }
    public static var spring: Animation { Animation() }
    public static func easeInOut(duration: TimeInterval) -> Animation { Animation() }
}

public struct Transaction {
    public init() {}
    public init(animation: Animation?) {}
    public var animation: Animation?
}

public func withAnimation<Result>(_ animation: Animation? = .default, _ body: () throws -> Result) rethrows -> Result {
    try body()
}

public func withTransaction<Result>(_ transaction: Transaction, _ body: () throws -> Result) rethrows -> Result {
    try body()
}
