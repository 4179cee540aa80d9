using Salsa.Hosting.Host;

namespace Salsa.Render;

/// <summary>Census cluster maps (SVG, PNG, GeoJSON) and MDS scatter plots as a service.</summary>
public sealed class RenderService : ISalsaService
{
    public static string Name => "render";

    public static ServicePorts DefaultPorts { get; } = new(5161, 5162);

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
    }

    public static void MapEndpoints(WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
    }
}
