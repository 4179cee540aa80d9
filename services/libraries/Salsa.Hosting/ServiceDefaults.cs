using System.Globalization;
using System.Text.Json.Serialization;
using Grpc.AspNetCore.Server.Model;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Rpc;
using Salsa.Hosting.Telemetry;
using Salsa.Hosting.Timing;
using Salsa.Settings;

namespace Salsa.Hosting;

/// <summary>
/// What every service sets up the same way (the ServiceDefaults pattern), and only what cuts
/// across all of them: telemetry, health, ProblemDetails, OpenAPI with Scalar's API reference and
/// a Swagger UI, gRPC (interceptor, health, reflection), limits, Server-Timing, and who may call
/// (<see cref="Security.ServiceSecurity"/>). The store, jobs
/// and datasets are features a service adds itself (<see cref="ServiceFeatures"/>).
/// </summary>
public static class ServiceDefaults
{
    public static WebApplicationBuilder AddServiceDefaults(this WebApplicationBuilder builder, string serviceName)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var services = builder.Services;
        services.AddSalsaOptions<ServiceLimits>(ServiceLimits.Section);
        services.AddOptions<Microsoft.AspNetCore.Server.Kestrel.Core.KestrelServerOptions>()
            .Configure<IOptions<ServiceLimits>>((kestrel, limits) =>
            {
                kestrel.Limits.MaxRequestBodySize = limits.Value.MaxRequestBytes;
                // Connections within what the process's descriptors allow, so a flood of them is
                // refused by Kestrel instead of failing the store's, the files' and the calls' opens.
                var connections = limits.Value.ConnectionLimit(Rpc.StreamSlots.OpenFileLimit);
                kestrel.Limits.MaxConcurrentConnections = connections;
                kestrel.Limits.MaxConcurrentUpgradedConnections = connections;
            });
        services.AddSingleton<Rpc.StreamSlots>();

        ServiceTelemetry.Add(services, serviceName);
        services.AddProblemDetails(o => o.CustomizeProblemDetails = DescribeBareStatus);
        services.AddSingleton<IProblemDetailsWriter, ProblemJsonFallbackWriter>(); // after the framework's: for callers whose Accept names no JSON
        services.AddExceptionHandler<ProblemDetailsExceptionHandler>();
        services.Configure<RouteHandlerOptions>(o => o.ThrowOnBadRequest = true);
        services.Configure<JsonOptions>(o =>
        {
            o.SerializerOptions.NumberHandling = JsonNumberHandling.Strict;
            // A member the request type does not have is a mistake (a misspelt option would
            // otherwise silently take its default) or padding: refused, naming the member.
            o.SerializerOptions.UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow;
            // A job's result is its gRPC message, written as the proto3 JSON mapping writes it.
            o.SerializerOptions.Converters.Add(new Rpc.ProtoJson());
        });
        services.AddOpenApi(o => o.SchemaNames().AddDocumentTransformer((document, _, _) =>
        {
            // The document is the release's contract: it names the release (openapi/*.json, docs/releasing.md).
            document.Info.Version = SalsaVersion.Version;
            return Task.CompletedTask;
        }).AddDocumentTransformer<ProblemResponses>().AddDocumentTransformer<Jobs.JobResultSchema>().AddOperationTransformer<ServerSentEventSchemas>().AddSchemaTransformer<ProtoSchemas>());
        services.AddHealthChecks().AddCheck("self", () => HealthCheckResult.Healthy(), ["live"]);

        services.AddSingleton<RpcMetrics>();
        services.AddOptions<Grpc.AspNetCore.Server.GrpcServiceOptions>()
            .Configure<IOptions<ServiceLimits>>((grpc, limits) => grpc.MaxReceiveMessageSize = limits.Value.MaxGrpcMessageBytes);
        services.AddGrpc(o =>
        {
            o.Interceptors.Add<ServiceCallInterceptor>();
            // Unknown services and methods pass on to routing; UnimplementedGrpcCalls answers them,
            // so no catch-all route stands between REST requests and their 404 or 405.
            o.IgnoreUnknownServices = true;
        });
        services.Replace(ServiceDescriptor.Singleton(typeof(IServiceMethodProvider<>), typeof(StrictRequestMethodProvider<>)));
        services.AddGrpcReflection();
        GrpcHealthNames.AddCachedGrpcHealth(services); // grpc.health.v1, fed by the ASP.NET Core health checks below

        services.AddSalsaOptions<Datasets.UserFileOptions>(Datasets.UserFileOptions.Section);
        services.AddHttpClient(Datasets.UserFiles.HttpClientName)
            .ConfigurePrimaryHttpMessageHandler(sp => Datasets.UserFiles.CreateHandler(sp.GetRequiredService<IOptions<UserFileOptions>>().Value));
        services.AddSingleton<Datasets.UserFiles>();

        services.AddSingleton(new ServiceIdentity(serviceName));
        Security.ServiceSecurity.Add(builder);
        return builder;
    }

    public static WebApplication MapDefaultEndpoints(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        // Every answer, errors and gRPC calls included, names the release that gave it (set as the
        // headers go out: the exception handler clears what was set before it).
        app.Use((context, next) =>
        {
            context.Response.OnStarting(static response =>
            {
                ((HttpResponse)response).Headers[SalsaVersion.Header] = SalsaVersion.Version;
                return Task.CompletedTask;
            }, context.Response);
            return next(context);
        });
        app.UseExceptionHandler();
        // Statuses the framework answers without a body (a JSON body over MaxRequestBytes, a wrong
        // content type or method, an unknown route) get a ProblemDetails like every other error.
        app.UseStatusCodePages();
        app.UseServerTiming();
        Security.ServiceSecurity.Use(app);
        app.UseUnimplementedGrpcCalls();

        // Open to anyone: probes, and the descriptions of the API (which hold no data).
        app.MapHealthChecks("/health").AllowAnonymous();
        app.MapHealthChecks("/alive", new HealthCheckOptions { Predicate = r => r.Tags.Contains("live") }).AllowAnonymous();
        app.MapGet("/api/version", (ServiceIdentity identity) => TypedResults.Ok(SalsaVersion.View(identity.Name)))
            .WithName("GetVersion").WithTags("Version")
            .WithSummary("The release that answers: its service, SemVer version, commit, contract (v1) and runtime.")
            .AllowAnonymous();
        app.MapOpenApi().AllowAnonymous();
        app.UseSwaggerUI(o =>
        {
            o.RoutePrefix = "docs";
            o.SwaggerEndpoint("/openapi/v1.json", app.Environment.ApplicationName);
            o.DocumentTitle = app.Environment.ApplicationName;
        });
        ApiReference.Map(app, app.Environment.ApplicationName);
        // A service's root describes it — unless the service serves a web UI there (the gateway).
        if (!app.Environment.WebRootFileProvider.GetFileInfo("index.html").Exists)
        {
            MapDescription(app);
        }

        app.MapGrpcHealthChecksService().AllowAnonymous();
        app.MapGrpcReflectionService().AllowAnonymous();
        return app;
    }

    private static void MapDescription(WebApplication app) =>
        app.MapGet("/", (ServiceIdentity identity) => TypedResults.Ok(new
        {
            service = identity.Name,
            openApi = "/openapi/v1.json",
            apiReference = ApiReference.Path,
            docs = "/docs",
            version = SalsaVersion.Version,
            health = "/health",
            alive = "/alive",
        })).ExcludeFromDescription().AllowAnonymous();

    private static void DescribeBareStatus(ProblemDetailsContext context)
    {
        if (context.ProblemDetails is { Status: StatusCodes.Status413PayloadTooLarge, Detail: null })
        {
            // An endpoint that takes a file has its own limit (Datasets.FileBodies); any other, the process's.
            var services = context.HttpContext.RequestServices;
            context.ProblemDetails.Detail = context.HttpContext.GetEndpoint()?.Metadata.GetMetadata<IRequestSizeLimitMetadata>() is not null
                ? string.Create(CultureInfo.InvariantCulture,
                    $"The file is larger than this service's limit of {services.GetRequiredService<IOptions<UserFileOptions>>().Value.MaxBytes:N0} bytes ({UserFileOptions.Section}:MaxBytes).")
                : string.Create(CultureInfo.InvariantCulture,
                    $"The request body is larger than this service's limit of {services.GetRequiredService<IOptions<ServiceLimits>>().Value.MaxRequestBytes:N0} bytes (Salsa:Limits:MaxRequestBytes).");
        }
    }
}
