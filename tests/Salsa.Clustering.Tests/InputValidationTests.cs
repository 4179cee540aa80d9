namespace Salsa.Clustering.Tests;

public sealed class InputValidationTests
{
    [Fact]
    public void DenseVectors_NaNCoordinate_IsRejected()
    {
        var error = Assert.Throws<ClusteringInputException>(() => new DenseVectors([1, 2, double.NaN, 4], 2));
        Assert.Contains("finite", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void DenseVectors_InfiniteCoordinate_IsRejected()
    {
        Assert.Throws<ClusteringInputException>(() => new DenseVectors([1, double.PositiveInfinity], 2));
    }

    [Fact]
    public void DenseVectors_ValuesNotAMultipleOfTheDimension_IsRejected()
    {
        var error = Assert.Throws<ClusteringInputException>(() => new DenseVectors([1, 2, 3], 2));
        Assert.Contains("dimension", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void FromRows_RowsOfDifferentLength_IsRejected()
    {
        var error = Assert.Throws<ClusteringInputException>(() => DenseVectors.FromRows([[1, 2], [3]]));
        Assert.Contains("Point 1 has 1", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void DenseVectors_Empty_IsRejected()
    {
        Assert.Throws<ClusteringInputException>(() => new DenseVectors([], 2));
    }

    [Fact]
    public void DenseVectors_ZeroTotalWeight_IsRejected()
    {
        var error = Assert.Throws<ClusteringInputException>(() => new DenseVectors([1, 2, 3, 4], 2, [0, 0]));
        Assert.Contains("total weight is zero", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void DenseVectors_NegativeWeight_IsRejected()
    {
        Assert.Throws<ClusteringInputException>(() => new DenseVectors([1, 2, 3, 4], 2, [1, -1]));
    }

    [Fact]
    public void DenseVectors_WrongNumberOfWeights_IsRejected()
    {
        Assert.Throws<ClusteringInputException>(() => new DenseVectors([1, 2, 3, 4], 2, [1]));
    }

    [Fact]
    public void BinaryVectors_BitsBeyondTheLength_AreRejected()
    {
        var error = Assert.Throws<ClusteringInputException>(() => new BinaryVectors([1UL << 10], 8));
        Assert.Contains("beyond bit 7", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void BinaryVectors_SetBits_AreIndexed()
    {
        var points = new BinaryVectors([0b1011UL, 1UL << 63], 64);

        Assert.Equal([0, 1, 3], points.BitsOf(0).ToArray());
        Assert.Equal([63], points.BitsOf(1).ToArray());
        Assert.Equal(3, points.PopCount(0));
    }
}
