using System.Diagnostics;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Salsa.Chemistry;

/// <summary>
/// Makes RDKit's first engine in the background once the service has started (start-up does not
/// wait for it); a failure is logged, and the first request that needs RDKit says why.
/// </summary>
public sealed partial class RdkitWarmUp(Rdkit rdkit, ILogger<RdkitWarmUp> logger) : BackgroundService
{
    private readonly TaskCompletionSource<string> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>RDKit's version once an engine is ready; faulted if none could be made.</summary>
    public Task<string> Ready => _ready.Task;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        await Task.Yield(); // the host's start does not wait for the WebAssembly's compilation
        var started = Stopwatch.GetTimestamp();
        try
        {
            var version = await rdkit.VersionAsync(stoppingToken).ConfigureAwait(false);
            var fingerprints = await rdkit.FingerprintsVersionAsync(stoppingToken).ConfigureAwait(false);
            var elapsed = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
            var maker = await rdkit.UsesSystemAsync(stoppingToken).ConfigureAwait(false) ? "the system's RDKit C++ library" : "RDKit MinimalLib (WebAssembly)";
            LogReady(logger, version, elapsed, fingerprints, maker, rdkit.SystemVersion ?? "none");
            _ready.TrySetResult(version);
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            _ready.TrySetCanceled(stoppingToken);
        }
#pragma warning disable CA1031 // A warm-up's failure is logged; the requests that need RDKit report it.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            LogFailed(logger, exception);
            _ready.TrySetException(exception);
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "RDKit {Version} ready in {Milliseconds:F0} ms; fingerprints by RDKit {FingerprintsVersion} ({Maker}; the system's RDKit: {SystemVersion}).")]
    private static partial void LogReady(ILogger logger, string version, double milliseconds, string fingerprintsVersion, string maker, string systemVersion);

    [LoggerMessage(Level = LogLevel.Warning, Message = "RDKit could not be started ahead of the first request.")]
    private static partial void LogFailed(ILogger logger, Exception exception);
}
