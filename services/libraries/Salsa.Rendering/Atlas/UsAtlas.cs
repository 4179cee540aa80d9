namespace Salsa.Rendering.Atlas;

/// <summary>
/// US state and county outlines from the us-atlas package's <c>counties-10m.json</c> (US Census
/// Bureau cartographic boundaries, 1:10,000,000, longitude/latitude). States carry 2-digit FIPS
/// ids (the 50 states, DC, Puerto Rico and the island areas 60, 66, 69, 78), counties 5-digit ids.
/// </summary>
public sealed class UsAtlas
{
    /// <summary>Where the build puts the outlines, relative to the application's directory.</summary>
    public const string RelativePath = "atlas/counties-10m.json";

    private static readonly Lazy<UsAtlas> s_default = new(() => Load(DefaultPath));

    private readonly Dictionary<string, TopoFeature> _statesById;

    public UsAtlas(IReadOnlyList<TopoFeature> states, IReadOnlyList<TopoFeature> counties, IReadOnlyList<TopoFeature> nation)
    {
        ArgumentNullException.ThrowIfNull(states);
        ArgumentNullException.ThrowIfNull(counties);
        ArgumentNullException.ThrowIfNull(nation);
        States = states;
        Counties = counties;
        Nation = nation;
        _statesById = states.Where(s => s.Id is not null).ToDictionary(s => s.Id!, StringComparer.Ordinal);
    }

    public IReadOnlyList<TopoFeature> States { get; }

    public IReadOnlyList<TopoFeature> Counties { get; }

    /// <summary>The national outline (land and borders), one feature.</summary>
    public IReadOnlyList<TopoFeature> Nation { get; }

    /// <summary><c>atlas/counties-10m.json</c> beside the application.</summary>
    public static string DefaultPath => Path.Combine(AppContext.BaseDirectory, RelativePath);

    /// <summary>The outlines at <see cref="DefaultPath"/>, decoded once per process.</summary>
    public static UsAtlas Default => s_default.Value;

    /// <summary>Reads a us-atlas <c>counties-10m.json</c> (objects <c>states</c>, <c>counties</c>, <c>nation</c>).</summary>
    /// <exception cref="FileNotFoundException">The file is missing (the build copies it; see Salsa.Rendering.csproj).</exception>
    public static UsAtlas Load(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (!File.Exists(path))
        {
            throw new FileNotFoundException(
                $"The US outlines '{path}' are missing. Building Salsa.Rendering restores the us-atlas npm package and copies its counties-10m.json to {RelativePath} beside the application.",
                path);
        }

        return From(TopoJsonTopology.ReadFile(path));
    }

    public static UsAtlas From(TopoJsonTopology topology)
    {
        ArgumentNullException.ThrowIfNull(topology);
        return new UsAtlas(topology.Features("states"), topology.Features("counties"), topology.Features("nation"));
    }

    /// <summary>The state with 2-digit FIPS <paramref name="fips"/>, or null.</summary>
    public TopoFeature? State(string fips)
    {
        ArgumentNullException.ThrowIfNull(fips);
        return _statesById.GetValueOrDefault(fips);
    }

    /// <summary>The counties of the state with 2-digit FIPS <paramref name="stateFips"/>.</summary>
    public IEnumerable<TopoFeature> CountiesOf(string stateFips)
    {
        ArgumentNullException.ThrowIfNull(stateFips);
        return Counties.Where(c => c.Id is { Length: 5 } id && id.StartsWith(stateFips, StringComparison.Ordinal));
    }
}
