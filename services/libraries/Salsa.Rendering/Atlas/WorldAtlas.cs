namespace Salsa.Rendering.Atlas;

/// <summary>
/// Country outlines of the whole world from the world-atlas package's <c>countries-50m.json</c>
/// (Natural Earth admin-0 countries, 1:50,000,000, longitude/latitude; public domain). Countries
/// carry ISO 3166-1 numeric ids (the US is <c>840</c>) and their names. The census maps draw them
/// as the land under places outside the US and as the neighbours around the US.
/// </summary>
public sealed class WorldAtlas
{
    /// <summary>Where the build puts the outlines, relative to the application's directory.</summary>
    public const string RelativePath = "atlas/countries-50m.json";

    /// <summary>The ISO 3166-1 numeric id of the United States, whose outline <see cref="UsAtlas"/> draws in more detail.</summary>
    public const string UnitedStatesId = "840";

    private static readonly Lazy<WorldAtlas> s_default = new(() => Load(DefaultPath));

    public WorldAtlas(IReadOnlyList<TopoFeature> countries)
    {
        ArgumentNullException.ThrowIfNull(countries);
        Countries = countries;
        Abroad = [.. countries.Where(c => c.Id != UnitedStatesId)];
    }

    public IReadOnlyList<TopoFeature> Countries { get; }

    /// <summary>Every country but the United States.</summary>
    public IReadOnlyList<TopoFeature> Abroad { get; }

    /// <summary><c>atlas/countries-50m.json</c> beside the application.</summary>
    public static string DefaultPath => Path.Combine(AppContext.BaseDirectory, RelativePath);

    /// <summary>The outlines at <see cref="DefaultPath"/>, decoded once per process.</summary>
    public static WorldAtlas Default => s_default.Value;

    /// <summary>Reads a world-atlas <c>countries-*.json</c> (object <c>countries</c>).</summary>
    /// <exception cref="FileNotFoundException">The file is missing (the build copies it; see Salsa.Rendering.csproj).</exception>
    public static WorldAtlas Load(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (!File.Exists(path))
        {
            throw new FileNotFoundException(
                $"The world outlines '{path}' are missing. Building Salsa.Rendering restores the world-atlas npm package and copies its countries-50m.json to {RelativePath} beside the application.",
                path);
        }

        return new WorldAtlas(TopoJsonTopology.ReadFile(path).Features("countries"));
    }

    /// <summary>The country with ISO 3166-1 numeric id <paramref name="id"/>, or null.</summary>
    public TopoFeature? Country(string id)
    {
        ArgumentNullException.ThrowIfNull(id);
        return Countries.FirstOrDefault(c => c.Id == id);
    }
}
