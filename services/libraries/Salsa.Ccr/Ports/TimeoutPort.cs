namespace Salsa.Ccr;

/// <summary>
/// A port that receives the time once, after a delay, so a <see cref="Choice"/> can race a message
/// against a timer. Uses <see cref="TimeProvider"/> so tests drive it without waiting.
/// </summary>
public sealed class TimeoutPort : Port<DateTimeOffset>, IDisposable
{
    private readonly ITimer _timer;

    public TimeoutPort(TimeSpan delay, TimeProvider? timeProvider = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(delay, TimeSpan.Zero);
        var clock = timeProvider ?? TimeProvider.System;
        _timer = clock.CreateTimer(static s =>
        {
            var (port, time) = ((TimeoutPort, TimeProvider))s!;
            port.Post(time.GetUtcNow());
        }, (this, clock), delay, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Stops the timer if it has not fired.</summary>
    public void Dispose() => _timer.Dispose();
}
