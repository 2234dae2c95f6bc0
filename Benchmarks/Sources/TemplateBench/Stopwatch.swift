/// Median time per call of `body`, from `rounds` rounds of `batch` calls each (after a warm-up),
/// with the spread of the round averages.
struct Measurement {
    var median: Duration
    var fastest: Duration
    var slowest: Duration

    static func of(rounds: Int = 101, batch: Int = 200, _ body: () -> Void) -> Measurement {
        for _ in 0..<batch { body() }
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for _ in 0..<rounds {
            let start = clock.now
            for _ in 0..<batch { body() }
            samples.append((clock.now - start) / batch)
        }
        samples.sort()
        return Measurement(median: samples[samples.count / 2], fastest: samples[0], slowest: samples[samples.count - 1])
    }
}

extension Duration {
    /// Microseconds, as a number.
    var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}
