using Salsa.Rendering.Atlas;

namespace Salsa.Rendering.Tests;

public sealed class UsAtlasTests
{
    private static readonly string[] StatesDcAndPuertoRico =
    [
        "01", "02", "04", "05", "06", "08", "09", "10", "11", "12", "13", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26",
        "27", "28", "29", "30", "31", "32", "33", "34", "35", "36", "37", "38", "39", "40", "41", "42", "44", "45", "46", "47", "48", "49", "50",
        "51", "53", "54", "55", "56", "72",
    ];

    [Fact]
    public void Default_UsAtlasCounties10m_HasEveryStateDcAndPuertoRico()
    {
        var atlas = UsAtlas.Default;

        Assert.Equal(52, StatesDcAndPuertoRico.Length);
        Assert.All(StatesDcAndPuertoRico, id => Assert.NotEmpty(Assert.IsType<TopoFeature>(atlas.State(id)).Polygons));

        // us-atlas 3 also has the island areas: American Samoa, Guam, the Northern Marianas, the Virgin Islands.
        Assert.Equal(["60", "66", "69", "78"], atlas.States.Select(s => s.Id!).Except(StatesDcAndPuertoRico).Order(StringComparer.Ordinal));
        Assert.Equal("Puerto Rico", atlas.State("72")!.Name);
        Assert.Equal("District of Columbia", atlas.State("11")!.Name);
        Assert.Single(atlas.Nation);
    }

    [Fact]
    public void State_Indiana_RingsSpanIndianasKnownBoundingBox()
    {
        var indiana = UsAtlas.Default.State("18")!;
        var bounds = GeoBounds.Of(indiana.Rings.SelectMany(r => r));

        Assert.Equal("Indiana", indiana.Name);
        Assert.Equal(37.77, bounds.MinLatitude, 0.05);
        Assert.Equal(41.76, bounds.MaxLatitude, 0.05);
        Assert.Equal(-88.10, bounds.MinLongitude, 0.05);
        Assert.Equal(-84.78, bounds.MaxLongitude, 0.05);
        Assert.All(indiana.Rings, r => Assert.Equal(r[0], r[^1]));
    }

    [Fact]
    public void CountiesOf_Indiana_Has92FiveDigitCounties()
    {
        var counties = UsAtlas.Default.CountiesOf("18").ToList();

        Assert.Equal(92, counties.Count);
        Assert.All(counties, c => Assert.Matches("^18[0-9]{3}$", c.Id!));
        Assert.Contains(counties, c => c is { Id: "18097", Name: "Marion" });
        Assert.InRange(UsAtlas.Default.Counties.Select(c => c.Id).Distinct().Count(), 3100, 3300);
    }

    [Fact]
    public void Contains_FixturePoints_FallInIndiana()
    {
        var indiana = UsAtlas.Default.State("18")!;

        var inside = Clusterings.IndianaRows.Count(r => RingGeometry.Contains(indiana, new GeoPoint(r.Latitude, r.Longitude)));

        // The 1:10m outline is simplified, so a point on the Ohio River may fall on the far bank.
        Assert.InRange(inside, 990, 1000);
    }

    [Fact]
    public void Load_MissingFile_SaysHowTheBuildProvidesIt()
    {
        var error = Assert.Throws<FileNotFoundException>(() => UsAtlas.Load("/nonexistent/counties-10m.json"));

        Assert.Contains("us-atlas", error.Message, StringComparison.Ordinal);
    }
}
