// The libdispatch race that made Drift Box's descriptor waits leave DispatchSource for its own
// epoll thread (Sources/DriftSystem/EpollReactor.swift): run by scripts/repro-dispatch-hangup.sh.
//
// Four threads each loop over pseudo-terminal pairs the way the serial ports and their tests
// used read and write sources: a read source armed per wait on both ends, a long-lived write
// source on the port side, suspended while nobody writes; then the device end is closed under
// an armed read source on the port end (a hang-up), and every source is cancelled and its
// cancel handler awaited before its descriptor is closed — libdispatch's rules, kept.
//
// On a hang-up (EPOLLHUP) libdispatch's manager thread walks the descriptor's bookkeeping (its
// "muxnote") to mark each source for deletion, and each source then deletes itself from that
// bookkeeping on its own queue — another thread — which frees the muxnote when it was the last:
// the manager thread may still be reading it. With MALLOC_PERTURB_ set, freed memory is
// overwritten, and the read crashes in _dispatch_event_loop_drain.
//
//   swiftc -O tools/dispatch-hangup-race.swift -o .build/dispatch-hangup-race
//   MALLOC_PERTURB_=165 .build/dispatch-hangup-race SECONDS
import Dispatch
import Glibc

let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 60 : 60
let deadline = DispatchTime.now() + seconds
let cycles = UnsafeMutablePointer<Int>.allocate(capacity: 4)
cycles.initialize(repeating: 0, count: 4)

func openPair() -> (master: Int32, slave: Int32)? {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
    guard master >= 0 else { return nil }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    _ = ioctl(master, UInt(0x4004_5431), &unlock)  // TIOCSPTLCK
    _ = ioctl(master, UInt(0x8004_5430), &number)  // TIOCGPTN
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard slave >= 0 else { close(master); return nil }
    return (master, slave)
}

/// A read source that cancels itself when it fires, and the semaphore its cancel handler signals.
func armRead(_ descriptor: Int32, on queue: DispatchQueue) -> (DispatchSourceRead, DispatchSemaphore) {
    let cancelled = DispatchSemaphore(value: 0)
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { source.cancel() }
    source.setCancelHandler { cancelled.signal() }
    source.activate()
    return (source, cancelled)
}

func loop(_ index: Int) {
    let queue = DispatchQueue(label: "pty\(index)")
    while DispatchTime.now() < deadline {
        guard let (master, slave) = openPair() else { continue }
        let writeCancelled = DispatchSemaphore(value: 0)
        let writer = DispatchSource.makeWriteSource(fileDescriptor: slave, queue: queue)
        writer.setEventHandler {}
        writer.setCancelHandler { writeCancelled.signal() }
        writer.activate()
        queue.sync { writer.suspend() }
        var armed: [(DispatchSourceRead, DispatchSemaphore)] = []
        for round in 0..<4 {
            armed.append(armRead(slave, on: queue))
            armed.append(armRead(master, on: queue))
            var byte = UInt8(round)
            _ = write(master, &byte, 1)
            _ = write(slave, &byte, 1)
            if round == 1 {
                queue.sync { writer.resume() }
                usleep(50)
                queue.sync { writer.suspend() }
            }
        }
        armed.append(armRead(slave, on: queue))
        for (source, cancelled) in armed where source.handle == master {
            source.cancel()
            cancelled.wait()
        }
        close(master)  // the hang-up, under the port end's armed read source
        usleep(UInt32.random(in: 0...300))
        for (source, cancelled) in armed where source.handle == slave {
            source.cancel()
            cancelled.wait()
        }
        writer.cancel()
        writer.resume()
        writeCancelled.wait()
        close(slave)
        cycles[index] += 1
    }
}

var threads: [pthread_t] = []
for index in 0..<4 {
    var thread = pthread_t()
    let context = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    context.initialize(to: index)
    pthread_create(&thread, nil, { raw in
        let pointer = raw!.assumingMemoryBound(to: Int.self)
        loop(pointer.pointee)
        return nil
    }, context)
    threads.append(thread)
}
for thread in threads { pthread_join(thread, nil) }
print("survived \(Int(seconds)) s: \((0..<4).map { cycles[$0] }.reduce(0, +)) hang-up cycles")
