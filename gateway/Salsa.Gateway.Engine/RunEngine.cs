using System.IO.Compression;
using Microsoft.AspNetCore.ResponseCompression;
using Microsoft.Extensions.Options;
using Salsa.Gateway.Api;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Salsa.Hosting;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Security;
using Salsa.Settings;

namespace Salsa.Gateway;

/// <summary>
/// The run engine in a web host: the runs API (REST, SSE, gRPC), the run store, the static web UI of
/// the host's content root, and the services it composes — remote when addressed, embedded through
/// the host's <see cref="EmbeddedServices"/> otherwise.
/// </summary>
public static class RunEngine
{
    /// <summary>The gateway's name: its telemetry service and meter, its job records.</summary>
    public const string Name = "gateway";

    /// <summary>The gateway's ActivitySource: one trace per run, a span per step.</summary>
    public const string ActivitySourceName = "gateway";

    public static WebApplicationBuilder AddRunEngine(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddStore(); // runs are kept in the store the services share

        // With Cluster:Enabled this process is the silo its embedded services compute on (they are
        // the cluster's clients): one silo, whichever services a run starts.
        builder.AddGridCompute();
        var services = builder.Services;
        // The operations as the services this gateway hosts bound them (its Salsa:Limits are theirs).
        services.AddSingleton(sp => new OperationCatalog(sp.GetRequiredService<IOptions<Salsa.Hosting.ServiceLimits>>().Value));
        services.AddSalsaOptions<GatewayOptions>(GatewayOptions.Section);
        services.AddSalsaOptions<WorkflowLimits>(WorkflowLimits.Section);
        services.AddSingleton(sp => new WorkflowParser(sp.GetRequiredService<OperationCatalog>(), sp.GetRequiredService<IOptions<WorkflowLimits>>().Value));
        services.AddSingleton<WorkflowLibrary>();
        services.AddSingleton<ServiceDirectory>();
        services.AddSalsaOptions<RunLimits>(RunLimits.Section);
        services.AddSingleton<RunManager>();
        services.AddHostedService(sp => sp.GetRequiredService<RunManager>());
        services.AddSingleton<GatewayGrpcService>();

        // Text, JSON, GeoJSON and SVG compressed for clients that accept it (a US map is 2.4 MB of SVG,
        // about a seventh of that at the fastest level); the event stream, gRPC and PNGs are left as they are.
        services.AddResponseCompression(o =>
        {
            o.EnableForHttps = true; // secrets (new API keys) are kept out of it: see MapEndpoints
            o.Providers.Add<BrotliCompressionProvider>();
            o.Providers.Add<GzipCompressionProvider>();
            o.MimeTypes = [.. ResponseCompressionDefaults.MimeTypes, "image/svg+xml", "application/geo+json", "text/csv", "application/problem+json"];
        });
        services.Configure<BrotliCompressionProviderOptions>(o => o.Level = CompressionLevel.Fastest);
        services.Configure<GzipCompressionProviderOptions>(o => o.Level = CompressionLevel.Fastest);

        // A workflow that does not validate: a 400 whose `errors` list every problem with its line.
        services.PostConfigure<ProblemDetailsOptions>(o =>
        {
            var inner = o.CustomizeProblemDetails;
            o.CustomizeProblemDetails = context =>
            {
                inner?.Invoke(context);
                if (context.Exception is WorkflowValidationException invalid)
                {
                    context.ProblemDetails.Title = "The workflow is not valid";
                    context.ProblemDetails.Extensions["errors"] = invalid.Errors;
                }
            };
        });
        return builder;
    }

    public static WebApplication MapRunEngine(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        // Not the keys API: a response holding a secret beside text a caller chose is what a
        // compression side channel (BREACH) reads.
        app.UseWhen(context => !context.Request.Path.StartsWithSegments("/api/keys", StringComparison.OrdinalIgnoreCase), branch => branch.UseResponseCompression());
        app.UseDefaultFiles();
        app.UseStaticFiles();
        app.MapGatewayApi();
        app.MapUploadsApi();
        app.MapDatasetsListApi();
        app.MapKeysApi();
        app.MapGrpcService<GatewayGrpcService>();
        return app;
    }
}
