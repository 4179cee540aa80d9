using System.Collections.Concurrent;
using System.Diagnostics;

namespace Salsa.Testing;

/// <summary>Outside programs the tests drive: Node.js clients, npm, git, dotnet. Their absence fails a test with what to install.</summary>
public static class ExternalProgram
{
    private static readonly ConcurrentDictionary<string, Lazy<Task>> s_npmInstalls = new();

    /// <summary>
    /// Runs <paramref name="program"/> to the end and returns its exit code and output; variables in
    /// <paramref name="environment"/> are set in its environment (a null value removes one).
    /// </summary>
    public static async Task<(int ExitCode, string Output, string Error)> RunAsync(
        string program, string workingDirectory, IEnumerable<string> arguments, CancellationToken cancellationToken, IReadOnlyDictionary<string, string?>? environment = null)
    {
        var start = new ProcessStartInfo(program)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment ?? new Dictionary<string, string?>())
        {
            if (value is null)
            {
                start.Environment.Remove(name);
            }
            else
            {
                start.Environment[name] = value;
            }
        }

        Process process;
        try
        {
            process = Process.Start(start) ?? throw new InvalidOperationException($"{program} did not start.");
        }
        catch (System.ComponentModel.Win32Exception exception)
        {
            throw new InvalidOperationException(
                $"'{program}' could not be started ({exception.Message}). Node.js and npm are test prerequisites: .ci/install-prerequisites installs them.", exception);
        }

        using (process)
        {
            var output = process.StandardOutput.ReadToEndAsync(cancellationToken);
            var error = process.StandardError.ReadToEndAsync(cancellationToken);
            try
            {
                await process.WaitForExitAsync(cancellationToken);
            }
            catch (OperationCanceledException)
            {
                process.Kill(entireProcessTree: true);
                throw;
            }

            return (process.ExitCode, await output, await error);
        }
    }

    /// <summary>
    /// <c>npm ci</c> in <paramref name="directory"/> once per test run, and only when
    /// <c>node_modules/<paramref name="package"/></c> is missing (the lock file pins every version).
    /// </summary>
    public static Task EnsureNpmPackagesAsync(string directory, string package, CancellationToken cancellationToken) =>
        s_npmInstalls.GetOrAdd(directory, d => new Lazy<Task>(async () =>
        {
            if (Directory.Exists(Path.Combine(d, "node_modules", package)))
            {
                return;
            }

            var (exitCode, output, error) = await RunAsync("npm", d, ["ci", "--no-audit", "--no-fund"], cancellationToken);
            if (exitCode != 0)
            {
                throw new InvalidOperationException($"npm ci failed in {d} ({exitCode}):\n{output}\n{error}");
            }
        })).Value;
}
