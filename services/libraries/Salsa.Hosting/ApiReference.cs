using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Scalar.AspNetCore;

namespace Salsa.Hosting;

/// <summary>
/// Scalar's API reference over a service's <c>/openapi/v1.json</c>, at <c>/scalar</c>, from
/// Scalar.AspNetCore: the page and its script are served by the service itself (embedded in the
/// package), with Scalar's web fonts and telemetry off, so the page needs no network beyond the service.
/// </summary>
public static class ApiReference
{
    public const string Path = "/scalar";

    public static void Map(WebApplication app, string title) =>
        app.MapScalarApiReference(Path, options => options
                .WithTitle($"{title} API")
                .DisableDefaultFonts()
                .DisableTelemetry())
            .ExcludeFromDescription()
            .AllowAnonymous();
}
