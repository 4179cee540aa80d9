using System.Globalization;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Configuration.Json;
using Microsoft.Extensions.Hosting;
using Salsa.Hosting.Rpc;

namespace Salsa.Hosting.Host;

/// <summary>How a service is started: its command line and settings that win over every other source.</summary>
public sealed record ServiceHostSettings
{
    public IReadOnlyList<string> Args { get; init; } = [];

    /// <summary>Configuration applied last (ports, store, limits), e.g. from the gateway or a test.</summary>
    public IReadOnlyDictionary<string, string?> Settings { get; init; } = new Dictionary<string, string?>();

    /// <summary>Read the service's appsettings.json beside its assembly (off when embedded: the host owns configuration).</summary>
    public bool LoadAppSettings { get; init; } = true;

    /// <summary>Settings that bind the service's REST and gRPC endpoints to these loopback ports.</summary>
    public static Dictionary<string, string?> PortSettings(ServicePorts ports)
    {
        ArgumentNullException.ThrowIfNull(ports);
        return new Dictionary<string, string?>
        {
            ["Kestrel:Endpoints:Rest:Url"] = ports.RestAddress.ToString(),
            ["Kestrel:Endpoints:Rest:Protocols"] = "Http1",
            ["Kestrel:Endpoints:Grpc:Url"] = ports.GrpcAddress.ToString(),
            ["Kestrel:Endpoints:Grpc:Protocols"] = "Http2",
        };
    }
}

/// <summary>Builds a service's web application the one way every mode shares.</summary>
public static class SalsaServiceHost
{
    public static WebApplication Create<TService>(string[] args)
        where TService : ISalsaService =>
        Create<TService>(new ServiceHostSettings { Args = args });

    /// <summary>A service's whole life as its own process: <see cref="RunAsync(string, Func{WebApplication}, Func{WebApplication, Task}?, CancellationToken)"/>.</summary>
    public static Task<int> RunAsync<TService>(string[] args)
        where TService : ISalsaService =>
        SalsaVersion.PrintIfAsked(args, Console.Out) ? Task.FromResult(0) : RunAsync(TService.Name, () => Create<TService>(args));

    /// <summary>
    /// Builds and starts an application, then runs it until it stops. A refusal to start — a
    /// setting it will not run with, a port another process holds — is one line on standard error
    /// and exit code 1, not an unhandled exception's abort (exit 134) with a stack trace.
    /// </summary>
    public static async Task<int> RunAsync(string name, Func<WebApplication> create, Func<WebApplication, Task>? started = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(create);
        WebApplication? app = null;
        try
        {
            app = create();
            await app.StartAsync(cancellationToken).ConfigureAwait(false);
            if (started is not null)
            {
                await started(app).ConfigureAwait(false);
            }
        }
        catch (Exception exception) when (IsRefusal(exception))
        {
            await Console.Error.WriteLineAsync($"{name} did not start: {exception.Message}").ConfigureAwait(false);
            if (app is not null)
            {
                await app.DisposeAsync().ConfigureAwait(false);
            }

            return 1;
        }

        await using (app)
        {
            await app.WaitForShutdownAsync(cancellationToken).ConfigureAwait(false);
        }

        return 0;
    }

    // What configuration and the machine refuse, as opposed to a fault of the program.
    private static bool IsRefusal(Exception exception) => exception is InvalidOperationException or ArgumentException or IOException
        or Microsoft.Extensions.Options.OptionsValidationException or UnauthorizedAccessException or System.Security.Cryptography.CryptographicException;

    public static WebApplication Create<TService>(ServiceHostSettings settings)
        where TService : ISalsaService
    {
        ArgumentNullException.ThrowIfNull(settings);
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions
        {
            Args = [.. settings.Args],
            ApplicationName = typeof(TService).Assembly.GetName().Name,
            ContentRootPath = AppContext.BaseDirectory,
        });
        var sources = builder.Configuration.Sources;
        if (!settings.LoadAppSettings)
        {
            foreach (var json in sources.OfType<JsonConfigurationSource>().ToList())
            {
                sources.Remove(json);
            }
        }

        // Highest priority: what the caller says (the ports of a standalone run are its appsettings.json's, stated there only).
        builder.Configuration.AddInMemoryCollection(settings.Settings);

        builder.AddServiceDefaults(TService.Name);
        TService.AddServices(builder);
        var app = builder.Build();
        app.MapDefaultEndpoints();
        TService.MapEndpoints(app);
        app.MapGrpcHealthNames();
        return app;
    }

    /// <summary>The REST and gRPC addresses the running application listens on, from its configuration.</summary>
    public static ServicePorts Ports(IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return new ServicePorts(PortOf(configuration, "Rest"), PortOf(configuration, "Grpc"));
    }

    private static int PortOf(IConfiguration configuration, string endpoint)
    {
        var url = configuration[$"Kestrel:Endpoints:{endpoint}:Url"] ?? throw new InvalidOperationException($"Kestrel:Endpoints:{endpoint}:Url is not configured.");
        return new Uri(url.Replace("*", "localhost", StringComparison.Ordinal)).Port is var port and > 0
            ? port
            : throw new InvalidOperationException(string.Create(CultureInfo.InvariantCulture, $"Kestrel:Endpoints:{endpoint}:Url ({url}) has no port."));
    }
}
