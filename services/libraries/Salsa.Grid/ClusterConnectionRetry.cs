using Microsoft.Extensions.Logging;

namespace Salsa.Grid;

/// <summary>
/// How a service that computes on the silos waits for them at start: it keeps asking until the
/// cluster answers or the service is stopped, with a back-off of half a second doubling to five
/// seconds. A service may start before any silo has (containers started together, a silo being
/// replaced): before the first silo has made the membership tables, or while no gateway is listed,
/// Orleans' client would otherwise throw out of <c>StartAsync</c> and take the process with it.
/// The service is not ready (it does not listen) until it is connected.
/// </summary>
internal sealed partial class ClusterConnectionRetry(ILogger<ClusterConnectionRetry> logger, TimeProvider time) : IClientConnectionRetryFilter
{
    private static readonly TimeSpan FirstDelay = TimeSpan.FromMilliseconds(500);
    private static readonly TimeSpan LongestDelay = TimeSpan.FromSeconds(5);

    private int _attempts;

    public async Task<bool> ShouldRetryConnectionAttempt(Exception exception, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return false;
        }

        var attempt = Interlocked.Increment(ref _attempts);
        var delay = Delay(attempt);
        // The reason once and then every tenth attempt: enough to be found, not a log full of it.
        if (attempt == 1 || attempt % 10 == 0)
        {
            LogWaiting(logger, attempt, delay.TotalSeconds, exception.GetType().Name, exception.Message);
        }

        try
        {
            await Task.Delay(delay, time, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    /// <summary>The wait before attempt <paramref name="attempt"/> + 1: 0.5, 1, 2, 4, then 5 s.</summary>
    private static TimeSpan Delay(int attempt) =>
        attempt >= 5 ? LongestDelay : TimeSpan.FromTicks(Math.Min(FirstDelay.Ticks << (attempt - 1), LongestDelay.Ticks));

    [LoggerMessage(Level = LogLevel.Warning, Message = "The cluster is not reachable yet (attempt {Attempt}, {Kind}: {Reason}); asking again in {DelaySeconds:F1} s.")]
    private static partial void LogWaiting(ILogger logger, int attempt, double delaySeconds, string kind, string reason);
}
