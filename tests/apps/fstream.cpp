// fstream - C++ file streams, as C++ codes write their output: libstdc++
// opens the file with fopen and then moves the bytes with write, writev,
// read and lseek on the descriptor under it.  Writes "0123456789" at 0
// and "abcde" at 20 of ./data through an ofstream, then reads it from
// byte 5 through an fstream.
#include <fstream>
#include <iostream>

int main()
{
	{
		std::ofstream o("data", std::ios::binary | std::ios::trunc);
		o.write("0123456789", 10);
		o.seekp(20);
		o.write("abcde", 5);
	}
	std::fstream io("data", std::ios::binary | std::ios::in | std::ios::out);
	char b[32];
	io.seekg(5);
	io.read(b, sizeof(b));
	std::cout << io.gcount() << '\n';
	return 0;
}
