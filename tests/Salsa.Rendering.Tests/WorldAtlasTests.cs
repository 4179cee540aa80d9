using Salsa.Rendering.Atlas;

namespace Salsa.Rendering.Tests;

public sealed class WorldAtlasTests
{
    [Fact]
    public void Default_WorldAtlasCountries50m_HasTheCountries_AndAbroadIsAllButTheUs()
    {
        var world = WorldAtlas.Default;

        Assert.InRange(world.Countries.Count, 230, 260);
        Assert.Equal("United States of America", world.Country(WorldAtlas.UnitedStatesId)!.Name);
        Assert.Equal(world.Countries.Count - 1, world.Abroad.Count);
        Assert.DoesNotContain(world.Abroad, c => c.Id == WorldAtlas.UnitedStatesId);
        Assert.All(world.Countries.SelectMany(c => c.Rings), r => Assert.Equal(r[0], r[^1]));
    }

    [Theory]
    [InlineData("250", "France", 48.86, 2.35)]
    [InlineData("356", "India", 28.61, 77.21)]
    [InlineData("076", "Brazil", -15.79, -47.88)]
    [InlineData("036", "Australia", -33.87, 151.21)]
    [InlineData("124", "Canada", 45.42, -75.70)]
    public void Country_ContainsItsCapitalOrLargestCity_AndNoOtherCountryDoes(string id, string name, double latitude, double longitude)
    {
        var world = WorldAtlas.Default;
        var place = new GeoPoint(latitude, longitude);

        var country = world.Country(id)!;

        Assert.Equal(name, country.Name);
        Assert.True(RingGeometry.Contains(country, place), $"{name} does not contain {place}.");
        Assert.Equal([id], world.Countries.Where(c => RingGeometry.Contains(c, place)).Select(c => c.Id));
    }

    [Fact]
    public void Contains_OpenSea_NoCountry()
    {
        Assert.DoesNotContain(WorldAtlas.Default.Countries, c => RingGeometry.Contains(c, new GeoPoint(-30.0, -140.0)));
    }

    [Fact]
    public void Load_MissingFile_SaysHowTheBuildProvidesIt()
    {
        var error = Assert.Throws<FileNotFoundException>(() => WorldAtlas.Load("/nonexistent/countries-50m.json"));

        Assert.Contains("world-atlas", error.Message, StringComparison.Ordinal);
    }
}
