using System.Text;

namespace Salsa.DataFiles.Tests;

public sealed class CensusBlockGroupsTests
{
    [Fact]
    public void ReadFile_IndianaFixture_MatchesPublishedCountsAndPopulation()
    {
        var rows = CensusBlockGroups.ReadFile(CensusBlockGroups.IndianaFixturePath);

        Assert.Equal(1000, rows.Count);
        Assert.Equal(1_292_660, rows.Sum(r => (long)r.Population));
        Assert.Single(rows, r => r.Population == 0);
        Assert.All(rows, r => Assert.Equal("18", r.StateFips));
        Assert.All(rows, r => Assert.InRange(r.Latitude, 37.7, 41.8));
        Assert.All(rows, r => Assert.InRange(r.Longitude, -88.1, -84.7));
    }

    [Fact]
    public void ReadFile_NationalFile_HasEveryBlockGroupAndTheOfficialTotal()
    {
        var rows = CensusBlockGroups.ReadFile(CensusBlockGroups.NationalPath);

        Assert.Equal(242_335, rows.Count);
        Assert.Equal(334_735_155, rows.Sum(r => (long)r.Population));
        Assert.Equal(52, rows.Select(r => r.StateFips).Distinct().Count());
        Assert.Equal(1_393, rows.Count(r => r.Population == 0));
    }

    [Fact]
    public void ReadFile_IndianaFile_SumsToTheStatePopulation()
    {
        var rows = CensusBlockGroups.ReadFile(CensusBlockGroups.IndianaPath);

        Assert.Equal(5_290, rows.Count);
        Assert.Equal(6_785_528, rows.Sum(r => (long)r.Population));
        Assert.Equal(9, rows.Count(r => r.Population == 0));
    }

    [Theory]
    [InlineData("geoid,state,county_fips,population,lat,lon\n", "header")]
    [InlineData("geoid,state_fips,county_fips,population,lat,lon\n180010301001,18,001,12,abc,-85\n", "'lat' is 'abc'")]
    [InlineData("geoid,state_fips,county_fips,population,lat,lon\n180010301001,18,002,12,40,-85\n", "does not agree")]
    [InlineData("geoid,state_fips,county_fips,population,lat,lon\n180010301001,18,001,-3,40,-85\n", "negative")]
    [InlineData("geoid,state_fips,county_fips,population,lat,lon\n180010301001,18,001\n", "3 fields")]
    public void Read_MalformedInput_ThrowsWithLineAndReason(string csv, string expected)
    {
        using var stream = new MemoryStream(Encoding.UTF8.GetBytes(csv));

        var error = Assert.Throws<InvalidDataException>(() => CensusBlockGroups.Read(stream, "bad.csv").ToList());

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }
}
