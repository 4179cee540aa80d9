using System.Diagnostics;

namespace Salsa.Testing;

/// <summary>
/// One of this project's hosts (<c>dotnet &lt;Name&gt;.dll</c>, built beside the caller) as its own
/// process, configured on its command line; ready when the host says so on its console (the lifetime
/// log), not after some time; killed outright (SIGKILL) when a test says.
/// </summary>
public sealed class HostProcess : IDisposable
{
    private readonly Process _process;
    private readonly List<string> _output = [];

    private HostProcess(Process process) => _process = process;

    public bool HasExited => _process.HasExited;

    /// <summary>The process's id (for its memory in /proc).</summary>
    public int ProcessId => _process.Id;

    /// <summary>What the process wrote so far (for a failing test's message).</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return string.Join('\n', _output);
            }
        }
    }

    /// <summary>
    /// Starts <paramref name="assembly"/> (e.g. <c>Salsa.Silo.dll</c>) with <paramref name="arguments"/>,
    /// inside network namespace <paramref name="netns"/> when given, in <paramref name="workingDirectory"/>
    /// (default: beside the binaries), with <paramref name="environment"/> added to this process's
    /// (the runtime's own settings, e.g. <c>DOTNET_TieredPGO</c>), and waits until it started.
    /// </summary>
    public static async Task<HostProcess> StartAsync(string assembly, IEnumerable<string> arguments, CancellationToken token, string? netns = null, TimeSpan? timeout = null,
        string? workingDirectory = null, IReadOnlyDictionary<string, string>? environment = null)
    {
        var info = new ProcessStartInfo(netns is null ? "dotnet" : "ip")
        {
            WorkingDirectory = workingDirectory ?? AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            info.Environment[name] = value;
        }

        foreach (var argument in (netns is null ? [] : new[] { "netns", "exec", netns, "dotnet" }).Append(Path.Combine(AppContext.BaseDirectory, assembly)).Concat(arguments))
        {
            info.ArgumentList.Add(argument);
        }

        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var host = new HostProcess(new Process { StartInfo = info, EnableRaisingEvents = true });
        void Keep(string? line)
        {
            if (line is null)
            {
                return;
            }

            lock (host._output)
            {
                host._output.Add(line);
            }

            if (line.Contains("Application started", StringComparison.Ordinal))
            {
                ready.TrySetResult();
            }
        }

        host._process.OutputDataReceived += (_, e) => Keep(e.Data);
        host._process.ErrorDataReceived += (_, e) => Keep(e.Data);
        host._process.Exited += (_, _) => ready.TrySetException(new InvalidOperationException($"{assembly} exited before it was ready:\n{host.Output}"));
        host._process.Start();
        host._process.BeginOutputReadLine();
        host._process.BeginErrorReadLine();
        try
        {
            await ready.Task.WaitAsync(timeout ?? TimeSpan.FromSeconds(90), token);
        }
        catch
        {
            host.Dispose();
            throw;
        }

        return host;
    }

    /// <summary>
    /// SIGTERM, as <c>docker compose stop</c> or a scale-down sends it: the host stops gracefully
    /// (its shutdown code runs). Waits up to <paramref name="limit"/> for the process to exit; true if it did.
    /// </summary>
    public async Task<bool> TerminateAsync(TimeSpan limit)
    {
        if (SendSignal(_process.Id, SigTerm) != 0)
        {
            throw new InvalidOperationException($"Could not send SIGTERM to process {_process.Id}.");
        }

        using var timeout = new CancellationTokenSource(limit);
        try
        {
            await _process.WaitForExitAsync(timeout.Token);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    private const int SigTerm = 15;

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int SendSignal(int pid, int signal);

    /// <summary>SIGKILL: no shutdown code runs, the process just disappears (from the network too).</summary>
    public void Kill()
    {
        _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Kill();
        }

        _process.Dispose();
    }
}
