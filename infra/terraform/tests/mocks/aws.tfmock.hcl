# The values the mocked AWS provider gives every test (terraform test, mock_provider "aws" { source = ... }):
# computed attributes the outputs are built from, fixed so the tests can assert on them. Documentation
# addresses only. Every counted instance gets the same values.

mock_data "aws_ami" {
  defaults = { id = "ami-0123456789abcdef0" }
}

mock_resource "aws_instance" {
  defaults = {
    id                = "i-0123456789abcdef0"
    public_ip         = "192.0.2.10"
    private_ip        = "10.42.16.10"
    availability_zone = "us-east-1a"
  }
}

mock_resource "aws_ebs_volume" {
  defaults = { id = "vol-0a1b2c3d4e5f60001" }
}

mock_resource "aws_security_group" {
  defaults = { id = "sg-0123456789abcdef0" }
}

mock_resource "aws_vpc" {
  defaults = { id = "vpc-0123456789abcdef0" }
}

mock_resource "aws_subnet" {
  defaults = { id = "subnet-0123456789abcdef0" }
}
