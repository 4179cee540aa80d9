using Salsa.Grid.Jobs;

namespace Salsa.Grid.Tests;

/// <summary>A job's result sent in parts: every cut reassembles to the same text, and a part past the end is refused.</summary>
public sealed class ResultPartTests
{
    [Fact]
    public async Task ReadAsync_AnyLengthAnyPartSize_TheSameText()
    {
        var random = new Random(7);
        for (var trial = 0; trial < 2_000; trial++)
        {
            var text = new string([.. Enumerable.Range(0, random.Next(0, 300)).Select(_ => (char)random.Next('0', 'z'))]);
            var partChars = random.Next(1, 40);
            var asked = 0;

            var read = await ResultPart.ReadAsync(index =>
            {
                asked++;
                return Task.FromResult<ResultPart?>(ResultPart.Of(text, index, partChars));
            });

            Assert.Equal(text, read);
            Assert.Equal(Math.Max(1, (text.Length + partChars - 1) / partChars), asked);
        }
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(3)]
    public void Of_AnIndexOutsideTheParts_Throws(int index) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => ResultPart.Of("abcdefghij", index, 4));

    [Fact]
    public async Task ReadAsync_NoResult_Null() =>
        Assert.Null(await ResultPart.ReadAsync(_ => Task.FromResult<ResultPart?>(null)));
}
