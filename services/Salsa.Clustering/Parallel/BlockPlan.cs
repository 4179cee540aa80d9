namespace Salsa.Clustering.Parallel;

/// <summary>
/// Points cut into fixed blocks, independent of the number of ranks. Each rank owns a contiguous
/// run of blocks; partial sums are kept per block and folded in block order, so results are the
/// same bits for 1, 2, 3 or any number of ranks.
/// </summary>
internal sealed class BlockPlan
{
    public const int DefaultBlockSize = 2048;

    public BlockPlan(int count, int blockSize = DefaultBlockSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(blockSize, 1);
        Count = count;
        BlockSize = blockSize;
        Blocks = (count + blockSize - 1) / blockSize;
    }

    public int Count { get; }

    public int BlockSize { get; }

    public int Blocks { get; }

    public (int Start, int End) Block(int block) => (block * BlockSize, Math.Min(Count, (block + 1) * BlockSize));

    /// <summary>The blocks rank <paramref name="rank"/> of <paramref name="size"/> computes: [First, End).</summary>
    public (int First, int End) BlocksOf(int rank, int size) =>
        ((int)((long)Blocks * rank / size), (int)((long)Blocks * (rank + 1) / size));

    /// <summary>The points rank <paramref name="rank"/> owns: [Start, End).</summary>
    public (int Start, int End) PointsOf(int rank, int size)
    {
        var (first, end) = BlocksOf(rank, size);
        return (Math.Min(Count, first * BlockSize), Math.Min(Count, end * BlockSize));
    }
}
