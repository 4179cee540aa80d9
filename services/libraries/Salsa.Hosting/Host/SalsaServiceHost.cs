using System.Security.Cryptography;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Configuration.Json;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salsa.Hosting.Rpc;
using Salsa.Settings;

namespace Salsa.Hosting.Host;

/// <summary>How a service is started: its command line and settings that win over every other source.</summary>
public sealed record ServiceHostSettings
{
    public IReadOnlyList<string> Args { get; init; } = [];

    /// <summary>Configuration applied last, as an operator would write it (a test's, a benchmark's).</summary>
    public IReadOnlyDictionary<string, string?> Settings { get; init; } = new Dictionary<string, string?>();

    /// <summary>The loopback ports of the service's REST and gRPC endpoints, when its host chooses them.</summary>
    public ServicePorts? Ports { get; init; }

    /// <summary>
    /// Options made by the process that hosts this service (the gateway's store, credentials,
    /// exposure, grid role): they win over the service's own configuration (<see cref="SalsaOptions.Give"/>).
    /// </summary>
    public IReadOnlyList<object> Options { get; init; } = [];

    /// <summary>The configuration of the process that hosts this service, whose <c>Salsa</c> and <c>Cluster</c> sections hold for it too.</summary>
    public IConfiguration? Parent { get; init; }

    /// <summary>The least level of the service's log, and of categories given their own (<c>Orleans</c>); null keeps its configuration's.</summary>
    public LogLevel? LogLevel { get; init; }

    public IReadOnlyDictionary<string, LogLevel> CategoryLogLevels { get; init; } = new Dictionary<string, LogLevel>();

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
        or OptionsValidationException or UnauthorizedAccessException or CryptographicException;

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

        if (settings.Parent is { } parent)
        {
            builder.Configuration.AddSections(parent, "Salsa", "Cluster");
        }

        // Highest priority: what the caller says (the ports of a standalone run are its appsettings.json's, stated there only).
        builder.Configuration.AddInMemoryCollection(settings.Settings);
        if (settings.Ports is { } ports)
        {
            builder.Configuration.AddInMemoryCollection(ServiceHostSettings.PortSettings(ports));
        }

        foreach (var options in settings.Options)
        {
            builder.Services.Give(options);
        }

        if (settings.LogLevel is { } level)
        {
            builder.Logging.SetMinimumLevel(level).AddFilter(null, level);
        }

        foreach (var (category, categoryLevel) in settings.CategoryLogLevels)
        {
            builder.Logging.AddFilter(category, categoryLevel);
        }

        builder.AddServiceDefaults(TService.Name);
        TService.AddServices(builder);
        var app = builder.Build();
        app.MapDefaultEndpoints();
        TService.MapEndpoints(app);
        app.MapGrpcHealthNames();
        return app;
    }
}
