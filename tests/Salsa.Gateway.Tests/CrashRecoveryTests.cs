using System.Diagnostics;
using System.Net.Http.Json;
using System.Text.Json;
using Salsa.Gateway.Operations;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway as its own process, killed outright (SIGKILL: no shutdown code runs) in the middle of
/// a run: the next process finds the run in the store and resumes it. Nothing vanishes.
/// </summary>
public sealed class CrashRecoveryTests
{
    [Fact]
    public async Task GatewayKilledMidRun_NextProcessResumesTheRun()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        Guid id;
        using (var first = await GatewayProcess.StartAsync(store, token))
        {
            using var started = await first.Http.PostAsJsonAsync("/api/runs", new { workflow = "census-indiana" }, token);
            id = JsonDocument.Parse(await started.Content.ReadAsStringAsync(token)).RootElement.GetProperty("id").GetGuid();
            await WaitForClusterProgressAsync(first.Http, id, token);
            first.Kill();
        }

        using var second = await GatewayProcess.StartAsync(store, token);
        JsonElement run;
        var clock = Stopwatch.StartNew();
        do
        {
            await Task.Delay(250, token);
            run = JsonDocument.Parse(await second.Http.GetStringAsync($"/api/runs/{id}", token)).RootElement;
        }
        while (run.GetProperty("state").GetString() is "queued" or "running" && clock.Elapsed < TimeSpan.FromMinutes(3));

        Assert.Equal("succeeded", run.GetProperty("state").GetString());
        Assert.Equal(1, run.GetProperty("resumes").GetInt32());
        var steps = run.GetProperty("steps").EnumerateArray().ToDictionary(s => s.GetProperty("id").GetString()!);
        Assert.True(steps["import"].GetProperty("reused").GetBoolean());
        Assert.True(steps["query"].GetProperty("reused").GetBoolean());
        Assert.Equal(3, run.GetProperty("artifacts").GetArrayLength());
    }

    private static async Task WaitForClusterProgressAsync(HttpClient http, Guid id, CancellationToken token)
    {
        using var response = await http.GetAsync($"/api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead, token);
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(token));
        var progress = false;
        while (await reader.ReadLineAsync(token) is { } line)
        {
            if (line == "event: progress")
            {
                progress = true;
            }
            else if (progress && line.StartsWith("data: ", StringComparison.Ordinal) && line.Contains("\"step\":\"cluster\"", StringComparison.Ordinal))
            {
                return;
            }
        }

        Assert.Fail("The run ended before its annealing reported progress.");
    }

    /// <summary><c>dotnet Salsa.Gateway.dll</c> in server mode, configured on its command line.</summary>
    private sealed class GatewayProcess : IDisposable
    {
        private readonly Process _process;

        private GatewayProcess(Process process, ServicePorts ports)
        {
            _process = process;
            Http = new HttpClient { BaseAddress = ports.RestAddress };
        }

        public HttpClient Http { get; }

        public static async Task<GatewayProcess> StartAsync(string store, CancellationToken token)
        {
            var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
            var workflows = new WorkflowLibrary(new WorkflowParser(new OperationCatalog()), new ConfigurationBuilder().Build()).Directory!;
            var info = new ProcessStartInfo("dotnet")
            {
                WorkingDirectory = AppContext.BaseDirectory,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                ArgumentList =
                {
                    Path.Combine(AppContext.BaseDirectory, "Salsa.Gateway.dll"),
                    $"--Kestrel:Endpoints:Rest:Url={ports.RestAddress}",
                    $"--Kestrel:Endpoints:Grpc:Url={ports.GrpcAddress}",
                    $"--Store:SqlitePath={store}",
                    $"--Gateway:WorkflowsDirectory={workflows}",
                    "--Gateway:WarmStart=false",
                    "--Logging:LogLevel:Default=Warning",
                },
            };
            var process = Process.Start(info) ?? throw new InvalidOperationException("dotnet did not start.");
            process.OutputDataReceived += (_, _) => { };
            process.ErrorDataReceived += (_, _) => { };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            var gateway = new GatewayProcess(process, ports);
            for (var i = 0; ; i++)
            {
                try
                {
                    using var health = await gateway.Http.GetAsync("/alive", token);
                    if (health.IsSuccessStatusCode)
                    {
                        return gateway;
                    }
                }
                catch (HttpRequestException) when (i < 300 && !process.HasExited)
                {
                }

                Assert.False(process.HasExited, $"The gateway process exited with {(process.HasExited ? process.ExitCode : 0)}.");
                await Task.Delay(100, token);
            }
        }

        /// <summary>SIGKILL: the process gets no chance to record anything.</summary>
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
            Http.Dispose();
        }
    }
}
