using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace Salsa.Hosting;

/// <summary>
/// The Scalar API reference over a service's <c>/openapi/v1.json</c>, at <c>/scalar</c>. Its browser
/// bundle is embedded in this assembly at build time (see Salsa.Hosting.csproj); a build that could
/// not fetch it answers <c>/scalar</c> with a page pointing at the Swagger UI.
/// </summary>
public static class ApiReference
{
    public const string Path = "/scalar";

    private const string BundleResource = "Salsa.Hosting.ApiReference.standalone.js";

    private static readonly Lazy<byte[]?> s_bundle = new(() =>
    {
        using var stream = typeof(ApiReference).Assembly.GetManifestResourceStream(BundleResource);
        if (stream is null)
        {
            return null;
        }

        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    });

    private static readonly string s_bundleTag = $"\"{typeof(ApiReference).Assembly.ManifestModule.ModuleVersionId:N}\"";

    /// <summary>True when this build embedded Scalar's bundle.</summary>
    public static bool Available => s_bundle.Value is not null;

    public static void Map(WebApplication app, string title)
    {
        var page = Page(title);
        app.MapGet(Path, () => Results.Content(page, "text/html; charset=utf-8")).ExcludeFromDescription();
        app.MapGet(Path + "/standalone.js", (HttpContext context) =>
        {
            if (s_bundle.Value is not { } bundle)
            {
                return Results.NotFound();
            }

            // The bundle changes only with the build: revalidated by the assembly's id.
            context.Response.Headers.CacheControl = "public, max-age=3600";
            context.Response.Headers.ETag = s_bundleTag;
            if (context.Request.Headers.IfNoneMatch == s_bundleTag)
            {
                return Results.StatusCode(StatusCodes.Status304NotModified);
            }

            return Results.Bytes(bundle, "text/javascript; charset=utf-8");
        }).ExcludeFromDescription();
    }

    private static string Page(string title)
    {
        var encoded = WebUtility.HtmlEncode(title);
        if (!Available)
        {
            return $$"""
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><title>{{encoded}} API</title></head>
                <body><p>This build of {{encoded}} has no Scalar API reference: its bundle (npm <code>@scalar/api-reference</code>) could not be fetched when it was built.
                The OpenAPI document is at <a href="/openapi/v1.json">/openapi/v1.json</a> and the Swagger UI at <a href="/docs">/docs</a>.</p></body></html>
                """;
        }

        // No fonts or anything else from the network: the page works where the service does. (Not
        // id="api-reference": the bundle mounts a second, unconfigured reference on an element with that id.)
        return $$"""
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>{{encoded}} API</title>
            </head>
            <body>
              <div id="app"></div>
              <script src="{{Path}}/standalone.js"></script>
              <script>
                Scalar.createApiReference('#app', { sources: [{ url: '/openapi/v1.json', title: 'v1', slug: 'v1' }], withDefaultFonts: false, telemetry: false });
              </script>
            </body>
            </html>
            """;
    }
}
