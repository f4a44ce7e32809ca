#if SAMLH_TSAN_LOCKS
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#else
import Synchronization
#endif

/// A value behind a lock: the package's one mutex for state shared across threads and tasks
/// (the mocks' stores, the traffic log, the run's interruption, the console's hub).
///
/// Normally it is `Synchronization.Mutex`, stored inline, at no cost over using `Mutex`
/// directly. Under the compilation condition `SAMLH_TSAN_LOCKS`, which `scripts/tsan.sh` sets
/// (`-Xswiftc -DSAMLH_TSAN_LOCKS`), it is a heap-allocated `pthread_mutex_t` instead. On Linux
/// `Mutex` locks with raw `futex` system calls, which ThreadSanitizer does not intercept: it sees
/// no happens-before edge between two critical sections of the same `Mutex` and reports every
/// access inside `withLock` as a race (docs/release-smoke.md, "What ThreadSanitizer found").
/// It intercepts `pthread_mutex_lock`, so with the condition set its reports are the real ones.
///
/// The shape is `Mutex`'s, so a call site changes only the type name:
///
/// ```swift
/// private let state = LockedValue(State())
/// let next = state.withLock { state in
///     defer { state.next += 1 }
///     return state.next
/// }
/// ```
package struct LockedValue<Value: ~Copyable>: ~Copyable {
    #if SAMLH_TSAN_LOCKS
    private let storage: Storage

    package init(_ initialValue: consuming sending Value) {
        storage = Storage(initialValue)
    }

    /// Runs `body` with the value while holding the lock.
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(storage.mutex)
        defer { pthread_mutex_unlock(storage.mutex) }
        return try body(&storage.value)
    }

    /// The pthread mutex and the value it guards, on the heap: a `pthread_mutex_t` must not
    /// move once initialised, and a `~Copyable` struct may.
    private final class Storage {
        let mutex: UnsafeMutablePointer<pthread_mutex_t>
        var value: Value

        init(_ value: consuming Value) {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            self.value = value
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
        }
    }
    #else
    @usableFromInline let mutex: Mutex<Value>

    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value while holding the lock.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
    #endif
}

// As `Mutex`: the value only ever crosses threads under the lock, and it enters `sending`.
extension LockedValue: @unchecked Sendable where Value: ~Copyable {}
