using System.Globalization;
using System.Text.Json.Nodes;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Host;
using Salsa.Settings;

namespace Salsa.Gateway.Cli;

/// <summary>The gateway with every service embedded, in this process, on free loopback ports.</summary>
public sealed class EmbeddedRunHost : IRunHost
{
    private readonly WebApplication _app;
    private readonly RunManager _runs;
    private readonly WorkflowLibrary _library;

    private EmbeddedRunHost(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
        _runs = app.Services.GetRequiredService<RunManager>();
        _library = app.Services.GetRequiredService<WorkflowLibrary>();
    }

    public Uri Address { get; }

    /// <summary>Starts the gateway on free loopback ports (never colliding with a server on 5080), so the run can be watched in a browser.</summary>
    public static async Task<EmbeddedRunHost> StartAsync(IReadOnlyDictionary<string, string?> configuration, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var pinned = PinnedPorts.From(SalsaOptions.Read<GatewayOptions>(new ConfigurationBuilder().AddInMemoryCollection(configuration).Build(), GatewayOptions.Section));
        var ports = pinned?.Gateway ?? new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var settings = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            // The terminal shows the run's own view: the console logs warnings only. A run's life is
            // logged at Information all the same, and exported over OTLP when an endpoint is set.
            ["Logging:Console:LogLevel:Default"] = "Warning",
            // Orleans' own notes (server GC, a thread pool stalled or a probe slow on a busy machine)
            // mean nothing to the user of one run; its errors still show, and a failed job says why.
            ["Logging:Console:LogLevel:Orleans"] = "Error",
        };
        if (pinned is not null)
        {
            settings["Cluster:SiloPort"] = pinned.Silo.ToString(CultureInfo.InvariantCulture);
            settings["Cluster:GatewayPort"] = pinned.SiloGateway.ToString(CultureInfo.InvariantCulture);
        }

        foreach (var (key, value) in configuration)
        {
            settings[key] = value;
        }

        var app = SalsaServiceHost.Create<GatewayService>(new ServiceHostSettings { Settings = settings });
        try
        {
            await app.StartAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception)
        {
            await app.DisposeAsync().ConfigureAwait(false);
            if (pinned is not null && exception is IOException)
            {
                throw new InvalidOperationException($"The gateway cannot listen on its pinned ports, {pinned.Describe(ports.Rest)} to {ports.Rest + PinnedPorts.Count - 1}: {exception.Message}", exception);
            }

            throw;
        }

        return new EmbeddedRunHost(app, ports.RestAddress);
    }

    public WorkflowDefinition Load(string workflow, IReadOnlyDictionary<string, JsonNode?> parameters) => RunHosts.Load(_library, workflow, parameters);

    public WorkflowDefinition Parse(string yaml, IReadOnlyDictionary<string, JsonNode?> parameters) => _library.Parse(yaml, "inline", null, parameters);

    public Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, CancellationToken cancellationToken) =>
        _runs.SubmitAsync(workflow, parameters, cancellationToken);

    public Task<RunView> ReproduceAsync(Guid id, CancellationToken cancellationToken) => _runs.ReproduceAsync(id, cancellationToken);

    public Task<RunView> ReproduceAsync(RunView recorded, CancellationToken cancellationToken) => _runs.ReproduceAsync(recorded, cancellationToken);

    public Task<RunView> RetryFromAsync(Guid id, string stepId, IReadOnlyDictionary<string, JsonNode?> changes, CancellationToken cancellationToken) =>
        _runs.RetryFromAsync(id, stepId, changes, cancellationToken);

    public IAsyncEnumerable<RunEvent> WatchAsync(Guid id, CancellationToken cancellationToken) => _runs.WatchAsync(id, cancellationToken);

    public Task<RunView> WaitAsync(Guid id, CancellationToken cancellationToken) => _runs.WaitAsync(id, cancellationToken);

    public async Task<byte[]> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken) =>
        (await _runs.GetArtifactAsync(id, name, cancellationToken).ConfigureAwait(false)).Data;

    public Task CancelAsync(Guid id) => _runs.CancelAsync(id, CancellationToken.None);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync(CancellationToken.None).ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
    }
}
