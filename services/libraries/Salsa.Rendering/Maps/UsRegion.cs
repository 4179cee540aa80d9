namespace Salsa.Rendering.Maps;

/// <summary>The parts of the US a national map shows apart: the conterminous states and the outlying parts.</summary>
public enum UsRegion
{
    Conterminous,
    Alaska,
    Hawaii,
    PuertoRico,
}

internal static class UsRegions
{
    public static readonly UsRegion[] All = [UsRegion.Conterminous, UsRegion.Alaska, UsRegion.Hawaii, UsRegion.PuertoRico];

    /// <summary>
    /// Boxes generous enough for each part's islands and clear of the others: Alaska north of 50°
    /// and west of 129°W (or across the antimeridian), Hawaii with the Northwestern Hawaiian
    /// Islands, and Puerto Rico with the Virgin Islands. Everything else counts as conterminous.
    /// </summary>
    public static UsRegion Of(GeoPoint p) => p switch
    {
        { Latitude: >= 50 } when p.Longitude <= -129 || p.Longitude >= 170 => UsRegion.Alaska,
        { Latitude: >= 18 and <= 29, Longitude: >= -180 and <= -154 } => UsRegion.Hawaii,
        { Latitude: >= 17.5 and <= 18.9, Longitude: >= -68.2 and <= -64.3 } => UsRegion.PuertoRico,
        _ => UsRegion.Conterminous,
    };

    public static string Name(UsRegion region) => region switch
    {
        UsRegion.Alaska => "Alaska",
        UsRegion.Hawaii => "Hawaii",
        UsRegion.PuertoRico => "Puerto Rico",
        _ => "Conterminous US",
    };
}
